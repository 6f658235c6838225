#pragma once
// What a one-time cost is called (steps/one_time.h): set-up runtime calls, compilation and
// autotuning ranges, the compilers' Python frames.

#include <string_view>

namespace gpuscope::analysis::internal {

// Runtime calls that only set up: the context, modules, streams, library handles.
bool IsSetUpCall(std::string_view n);

// Compilation and autotuning ranges (torch.compile, Triton, nvFuser, cuDNN benchmark) - not the
// runs of compiled code ("## Call CompiledFxGraph ##", "Torch-Compiled Region"), which compile
// nothing after their first call.
bool IsCompileRange(std::string_view n);

// A Python frame of the compilers: Dynamo's frame conversion, Inductor's compile_fx functions
// that compile, an autotuner's benchmarking. The compiled graph's runner (compile_fx's `run`)
// and an autotuner's `run` are every step's calls: their first call counts only in a one-pass
// window (`first_calls`), as an op's first call does (its autotuning and warm-up runs).
bool IsCompilerFrame(std::string_view n, bool first_calls);

}  // namespace gpuscope::analysis::internal
