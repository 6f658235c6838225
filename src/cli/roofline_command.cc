// `gpuscope roofline TRACE`: each op signature's FLOPs, bytes and time against the device's
// peaks (analysis/roofline/roofline.h), as a terminal table, CSV or JSON.

#include <cstdio>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/roofline/roofline.h"
#include "analysis/steps/steady_state.h"
#include "cli/commands.h"
#include "output/text_table.h"
#include "render/roofline_view.h"
#include "render/stats_view.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

using RooflineArgs = RooflineRequest;

}  // namespace

CommandBody AddRooflineCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<RooflineArgs>();
  app.add_option("trace", args->path,
                 std::string(kTraceHelp) + "; op shapes needed (record_shapes=True)")
      ->required();
  app.add_option("--device", args->device,
                 "The GPU the trace ran on, overriding what the trace says (MI300X, H100-SXM, "
                 "B200, ...; `gpuscope help roofline` lists them)");
  app.add_option("--top", args->top, "Rows per table in the terminal (0 = all)");
  AddFormatOption(app, &args->format);
  AddCaptureOption(app, &args->captures,
                   ", to price graph-replayed kernels by their captured ops (repeatable)");
  app.add_flag("--full-names", args->full_names, "Show names whole");
  app.add_flag("--steady", args->steady, "Only kernels launched in the steady state");
  return [args, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    GPUSCOPE_ASSIGN_OR_RETURN(auto out, RooflineOutput(trace, *args, common));
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
