#pragma once
// The Python code `gpuscope run --backend torch` injects into the program without changing it:
// a sitecustomize.py placed first on PYTHONPATH (see torch_hook.cc).

#include <string_view>

namespace gpuscope::cli {

// Text of sitecustomize.py. Environment it reads: GPUSCOPE_TRACE_DIR (where each profiled
// process writes trace-<pid>.json), GPUSCOPE_DELAY_S / GPUSCOPE_DURATION_S (profile a window),
// GPUSCOPE_HOOK_DIR (its own folder, removed from sys.path to chain to the next sitecustomize).
std::string_view TorchSiteCustomize();

}  // namespace gpuscope::cli
