#include <cstdio>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/stats/stats.h"
#include "analysis/steps/phase_summary.h"
#include "analysis/steps/steady_state.h"
#include "base/text.h"
#include "output/text_table.h"
#include "render/stats_view.h"
#include "session/categories.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::session {

base::StatusOr<std::string> StatsOutput(const model::Trace& trace, const StatsRequest& a,
                                        const CommonOptions& common) {
  analysis::StatsOptions opt;
  opt.demangle = !a.mangled;
  // The rows the output prints (a terminal shows 25 kernels and 15 of the others), no more.
  if (a.top_given)
    opt.max_rows = a.top;
  else if (a.format != "json" && a.format != "csv")
    opt.max_rows = 25;
  std::string window;
  if ((a.steady || !a.phase.empty()) && !trace.summary_only()) {
    analysis::SteadyState ss = analysis::FindSteadyState(trace);
    opt.window_start = ss.start_ns;
    opt.window_end = ss.end_ns;
    window = render::SteadyWindowLabel(ss);
    if (!a.phase.empty()) {
      const analysis::PhaseSteps* p = ss.Phase(a.phase);
      if (!p) {
        return base::Status::Error(a.path + ": " + analysis::MissingPhaseMessage(ss, a.phase));
      }
      opt.window_start = INT64_MIN, opt.window_end = INT64_MAX;
      opt.windows = analysis::PhaseIntervals(trace, ss, *p);
      window = a.phase + " phase: " + base::FormatCount(p->steps.size()) + " steps";
    }
  }
  analysis::Stats st = analysis::ComputeStats(trace, opt);
  if (a.by == "category") {
    GPUSCOPE_ASSIGN_OR_RETURN(auto rules, CategoryRulesFor(common));
    st.categories = analysis::GpuTimeByCategory(trace, opt, *rules);
  }
  if (a.by == "op") {
    GPUSCOPE_ASSIGN_OR_RETURN(auto given, LoadCaptures(a.captures, common));
    analysis::Attributor at(trace);
    analysis::GraphAttribution g = analysis::AttributeGraphKernels(trace, at, given);
    at.SetGraphs(&g);
    st.ops = analysis::GpuTimeByOp(trace, opt, at);
  }
  if ((a.by.empty() || a.by == "memory") && trace.memory.size() > 0) {
    analysis::Attributor at(trace);
    st.memory = analysis::MemoryByOp(trace, opt, at);
  }
  render::StatsView v;
  v.path = a.path;
  v.by = a.by;
  v.window = window;
  v.steady = a.steady;
  v.top = a.top;
  v.top_given = a.top_given;
  v.full_names = a.full_names;
  v.stream = a.stream;
  if (a.format == "json") return render::StatsJson(trace, st, v);
  if (a.format == "csv") return render::StatsCsv(st, v);
  return FitTerminal(render::StatsText(trace, st, v, output::TerminalWidth()), a.full_names);
}

}  // namespace gpuscope::session
