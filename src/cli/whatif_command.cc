// `gpuscope whatif TRACE [SCENARIO...]`: the steady window replayed without and with a change
// (analysis/replay/scenario.h), as a terminal report, CSV or JSON (render/whatif_view.h).

#include <cstdio>
#include <memory>
#include <string>

#include "analysis/replay/scenario.h"
#include "analysis/steps/steady_state.h"
#include "base/text.h"
#include "cli/commands.h"
#include "render/whatif_view.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires

CommandBody AddWhatIfCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<WhatIfRequest>();
  app.add_option("trace", a->path, kTraceHelp)->required();
  app.add_option("--gpu-speedup", a->scenario.gpu_speedup, "Every kernel X times faster");
  app.add_option("--kernels", a->kernels,
                 "REGEX=X: kernels whose name matches REGEX X times faster (repeatable)");
  app.add_option("--copies", a->scenario.copies, "Every copy and memset X times faster");
  app.add_option("--host-speedup", a->scenario.host_speedup,
                 "Host work between runtime calls X times faster, on every thread");
  app.add_flag("--no-syncs", a->scenario.no_syncs, "Synchronize calls no longer wait for the GPU");
  app.add_flag("--graphs", a->scenario.graphs,
               "Kernels replayed as a CUDA/HIP graph: no per-launch host cost or latency");
  app.add_flag("--without-tracer", a->scenario.without_tracer,
               "The tracer's spacing of graph-replayed kernels (ROCm tracers) taken out");
  app.add_option("--device", a->scenario.device,
                 "NAME: kernels projected onto that GPU through the roofline's work models "
                 "(gpuscope help whatif; help roofline lists the devices)");
  app.add_option("--fix", a->scenario.fixes,
                 "RULE: the fix analyze prices that rule's findings with (repeatable; gpuscope "
                 "help findings)");
  AddFormatOption(app, &a->format);
  return [a, &common]() -> base::StatusOr<int> {
    GPUSCOPE_RETURN_IF_ERROR(CheckScenario(*a));  // refused before the trace is read
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(a->path, common));
    GPUSCOPE_ASSIGN_OR_RETURN(auto out, WhatIfOutput(trace, *a));
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
