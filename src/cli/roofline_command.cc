// `gpuscope roofline TRACE`: each op signature's FLOPs, bytes and time against the device's
// peaks (analysis/roofline/roofline.h), as a terminal table, CSV or JSON.

#include <cstdio>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/roofline/roofline.h"
#include "analysis/steps/steady_state.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/outputs.h"
#include "output/text_table.h"
#include "render/roofline_view.h"
#include "render/stats_view.h"

namespace gpuscope::cli {
namespace {

using RooflineArgs = RooflineRequest;

}  // namespace

base::Status CheckDevice(const std::string& device) {
  if (device.empty() || analysis::FindDevice(device)) return base::Status::Ok();
  std::string known;
  for (const auto& d : analysis::KnownDevices()) {
    if (!known.empty()) known += ", ";
    known += d.key;
  }
  return base::Status::Error("--device " + device + ": not a known device; known: " + known);
}

base::StatusOr<std::string> RooflineOutput(const model::Trace& trace, const RooflineRequest& a,
                                           const CommonOptions& common) {
  if (trace.summary_only()) {
    return base::Status::Error(a.path +
                               ": a summary-only source (no events, no op shapes); roofline "
                               "needs a trace - profile with the PyTorch profiler "
                               "(record_shapes=True)");
  }
  GPUSCOPE_RETURN_IF_ERROR(CheckDevice(a.device));
  analysis::RooflineOptions opt;
  opt.device = a.device;
  render::RooflineView v;
  v.path = a.path;
  v.top = a.format == "table" ? a.top : 0;
  v.full_names = a.full_names;
  if (a.steady) {
    analysis::SteadyState ss = analysis::FindSteadyState(trace);
    opt.window_start = ss.start_ns, opt.window_end = ss.end_ns;
    v.window = render::SteadyWindowLabel(ss);
  }
  GPUSCOPE_ASSIGN_OR_RETURN(auto given, LoadCaptures(a.captures, common));
  analysis::Attributor at(trace);
  analysis::GraphAttribution graphs = analysis::AttributeGraphKernels(trace, at, given);
  analysis::RooflineReport r = analysis::ComputeRoofline(trace, opt, &graphs);
  if (a.format == "json") return render::RooflineJson(trace, r, v);
  if (a.format == "csv") return render::RooflineCsv(r);
  return FitTerminal(render::RooflineText(trace, r, v, output::TerminalWidth()), a.full_names);
}

CommandBody AddRooflineCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<RooflineArgs>();
  app.add_option("trace", args->path,
                 std::string(kTraceHelp) + "; op shapes needed (record_shapes=True)")
      ->required();
  app.add_option("--device", args->device,
                 "The GPU the trace ran on, overriding what the trace says (MI300X, H100-SXM, "
                 "B200, ...; `gpuscope help roofline` lists them)");
  app.add_option("--top", args->top, "Rows per table in the terminal (0 = all)");
  app.add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_option("--capture", args->captures,
                 "A trace of the graph captures of the same program, to price graph-replayed "
                 "kernels by their captured ops (repeatable)")
      ->check(CLI::ExistingPath);
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
