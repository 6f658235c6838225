// What a one-time cost is called (one_time_names.h).

#include "analysis/steps/one_time_names.h"

#include <string>

#include "analysis/common/call_names.h"
#include "base/text.h"

namespace gpuscope::analysis::internal {

// Runtime calls that only set up: the context, modules, streams, library handles.
bool IsSetUpCall(std::string_view n) {
  for (std::string_view s :
       {"ModuleLoad", "LibraryLoad", "StreamCreate", "FuncGetAttributes", "DeviceSetLimit",
        "CtxCreate", "PrimaryCtx", "RegisterFatBinary", "RegisterFunction", "cuInit", "hipInit",
        "cudnnCreate", "cublasCreate", "cublasLtCreate", "miopenCreate", "rocblas_create",
        "hipblasCreate", "hipblasLtCreate"}) {
    if (n.find(s) != std::string_view::npos) return true;
  }
  return false;
}

// Compilation and autotuning ranges (torch.compile, Triton, nvFuser, cuDNN benchmark) - not the
// runs of compiled code ("## Call CompiledFxGraph ##", "Torch-Compiled Region"), which compile
// nothing after their first call.
bool IsCompileRange(std::string_view n) {
  if (IsCompiledRegion(n)) return false;
  std::string lower = base::AsciiLower(n.substr(0, 200));
  for (std::string_view s : {"compile", "autotun", "nvfuser", "codegen", "cudnn_find",
                             "benchmark_conv", "triton_heuristics", "jit_"}) {
    if (lower.find(s) != std::string::npos) return true;
  }
  return false;
}

// A Python frame of the compilers: Dynamo's frame conversion, Inductor's compile_fx functions
// that compile, an autotuner's benchmarking. The compiled graph's runner (compile_fx's `run`)
// and an autotuner's `run` are every step's calls: their first call counts only in a one-pass
// window (`first_calls`), as an op's first call does (its autotuning and warm-up runs).
bool IsCompilerFrame(std::string_view n, bool first_calls) {
  const size_t colon = n.rfind("): ");
  const std::string_view function = colon == std::string_view::npos ? n : n.substr(colon + 3);
  auto has = [](std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
  };
  if (has(n, "torch/_dynamo/convert_frame")) return true;
  if (has(n, "torch/_inductor/compile_fx")) return first_calls || has(function, "compile");
  return has(n, "autotune") && (first_calls || has(function, "bench") ||
                                has(function, "autotune") || has(function, "precompile"));
}

}  // namespace gpuscope::analysis::internal
