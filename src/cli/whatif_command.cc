// `gpuscope whatif TRACE [SCENARIO...]`: the steady window replayed without and with a change
// (analysis/scenario.h), as a terminal report, CSV or JSON (render/whatif_view.h).

#include <cstdio>
#include <memory>
#include <string>

#include "analysis/scenario.h"
#include "analysis/steady_state.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "render/whatif_view.h"

namespace gpuscope::cli {
namespace {

struct WhatIfArgs {
  std::string path, format = "table";
  analysis::Scenario scenario;
  std::vector<std::string> kernels;  // REGEX=X
};

// "REGEX=X" -> (REGEX, X); the last '=' splits (a regex may hold one).
base::Status ParseKernels(const std::vector<std::string>& in, analysis::Scenario& s) {
  for (const auto& k : in) {
    size_t eq = k.rfind('=');
    double x = 0;
    if (eq != std::string::npos && eq > 0) {
      try {
        size_t used = 0;
        x = std::stod(k.substr(eq + 1), &used);
        if (used != k.size() - eq - 1) x = 0;
      } catch (const std::exception&) {
        x = 0;
      }
    }
    if (!(x > 0))
      return base::Status::Error("--kernels '" + k +
                                 "': expected REGEX=X with X > 0 "
                                 "(e.g. --kernels 'gemm=1.5': kernels matching gemm 1.5x faster)");
    s.kernels.emplace_back(k.substr(0, eq), x);
  }
  if (std::string bad = analysis::RegexError(s); !bad.empty()) return base::Status::Error(bad);
  return base::Status::Ok();
}

}  // namespace

CommandBody AddWhatIfCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<WhatIfArgs>();
  app.add_option("trace", a->path, kTraceHelp)->required();
  auto positive = CLI::PositiveNumber;
  app.add_option("--gpu-speedup", a->scenario.gpu_speedup, "Every kernel X times faster")
      ->check(positive);
  app.add_option("--kernels", a->kernels,
                 "REGEX=X: kernels whose name matches REGEX X times faster (repeatable)");
  app.add_option("--copies", a->scenario.copies, "Every copy and memset X times faster")
      ->check(positive);
  app.add_option("--host-speedup", a->scenario.host_speedup,
                 "Host work between runtime calls X times faster, on every thread")
      ->check(positive);
  app.add_flag("--no-syncs", a->scenario.no_syncs, "Synchronize calls no longer wait for the GPU");
  app.add_flag("--graphs", a->scenario.graphs,
               "Kernels replayed as a CUDA/HIP graph: no per-launch host cost or latency");
  app.add_option("--format", a->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [a, &common]() -> base::StatusOr<int> {
    GPUSCOPE_RETURN_IF_ERROR(ParseKernels(a->kernels, a->scenario));
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(a->path, common));
    if (trace.summary_only()) {
      return base::Status::Error(a->path +
                                 ": a summary-only source (no events): whatif replays a trace's "
                                 "events - profile with a tracer (rocprofv3 --kernel-trace, "
                                 "the PyTorch profiler, nsys)");
    }
    analysis::SteadyState steady = analysis::FindSteadyState(trace);
    analysis::ScenarioResult r = analysis::RunScenario(trace, steady, a->scenario);
    std::string out = a->format == "json"  ? render::WhatIfJson(trace, a->path, a->scenario, r)
                      : a->format == "csv" ? render::WhatIfCsv(a->scenario, r)
                                           : render::WhatIfText(trace, a->path, a->scenario, r);
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
