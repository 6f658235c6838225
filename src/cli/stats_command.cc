// `gpuscope stats TRACE`: the summary tables, as a terminal table, CSV or JSON.

#include <cstdio>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/stats/stats.h"
#include "analysis/steps/phase_summary.h"
#include "analysis/steps/steady_state.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/job_load.h"
#include "cli/load.h"
#include "cli/outputs.h"
#include "output/text_table.h"
#include "render/stats_view.h"

namespace gpuscope::cli {
namespace {

using StatsArgs = StatsRequest;

}  // namespace

base::StatusOr<std::string> StatsOutput(const model::Trace& trace, const StatsRequest& a,
                                        const CommonOptions& common) {
  analysis::StatsOptions opt;
  opt.demangle = !a.mangled;
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
  if (a.by == "op") {
    GPUSCOPE_ASSIGN_OR_RETURN(auto given, LoadCaptures(a.captures, common));
    analysis::Attributor at(trace);
    analysis::GraphAttribution g = analysis::AttributeGraphKernels(trace, at, given);
    at.SetGraphs(&g);
    st.ops = analysis::GpuTimeByOp(trace, opt, at);
  }
  render::StatsView v;
  v.path = a.path;
  v.by = a.by;
  v.window = window;
  v.steady = a.steady;
  v.top = a.top;
  v.top_given = a.top_given;
  v.full_names = a.full_names;
  if (a.format == "json") return render::StatsJson(trace, st, v);
  if (a.format == "csv") return render::StatsCsv(st, v);
  return FitTerminal(render::StatsText(trace, st, v, output::TerminalWidth()), a.full_names);
}

void PrintStatsTables(const model::Trace& trace, const std::string& path) {
  StatsArgs a;
  a.path = path;
  auto out = StatsOutput(trace, a, CommonOptions{});
  if (out.ok()) std::fputs(out->c_str(), stdout);
}

CommandBody AddStatsCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<StatsArgs>();
  app.add_option("trace", args->path, kTraceHelp)->required();
  app.add_option("--top", args->top,
                 "Rows per table (0 = all; tables default to 25/15, json/csv to all)")
      ->each([args](const std::string&) { args->top_given = true; });
  app.add_option("--by", args->by, "Only one table (csv defaults to kernels)")
      ->check(CLI::IsMember({"kernels", "memops", "api", "os", "cpu", "counters", "op"}));
  app.add_option("--phase", args->phase,
                 "Only the steps of one phase of a serving trace (see gpuscope analyze)")
      ->check(CLI::IsMember({"prefill", "decode", "mixed", "other"}));
  app.add_option("--capture", args->captures,
                 "With --by op: a trace of the graph captures of the same program, to attribute "
                 "graph-replayed kernels to their captured ops (repeatable)")
      ->check(CLI::ExistingPath);
  app.add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_flag("--full-names", args->full_names,
               "Show names whole instead of fitting them to the terminal");
  app.add_flag("--mangled", args->mangled, "Keep mangled kernel names as recorded");
  app.add_flag("--steady", args->steady,
               "Only the steady state: iterations after warm-up (see gpuscope analyze)");
  return [args, &common]() -> base::StatusOr<int> {
    if (auto files = JobFiles(args->path); !files.empty()) {
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      std::fputs(JobOutput(job, args->path, args->format, false, args->full_names, {}).c_str(),
                 stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    GPUSCOPE_ASSIGN_OR_RETURN(auto out, StatsOutput(trace, *args, common));
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
