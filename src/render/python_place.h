#pragma once
// A Python frame as a user reads it. PyTorch names a frame "file(line): function" with the line
// its function is defined at (the `def`), not the line that runs: the place says so ("in
// `slow_activation`, defined at inference_slow.py:19"), a module's top level is "module level of
// prog.py" (PyTorch records line 0 there), and the caller the trace records is named beside it.

#include <string>
#include <string_view>

namespace gpuscope::render {

// `frame` said as a place; `caller` (a frame name, "" unknown) adds ", called from `main`,
// defined at line 27". A name not of PyTorch's form (a user range) is returned as it is.
std::string PythonPlace(std::string_view frame, std::string_view caller = {});

}  // namespace gpuscope::render
