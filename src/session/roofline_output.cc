#include <cstdio>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/roofline/roofline.h"
#include "analysis/steps/steady_state.h"
#include "output/text_table.h"
#include "render/roofline_view.h"
#include "render/stats_view.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::session {

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

}  // namespace gpuscope::session
