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
#include "output/text_table.h"
#include "render/stats_view.h"
#include "session/job_load.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

using StatsArgs = StatsRequest;

}  // namespace

void PrintStatsTables(const model::Trace& trace, const std::string& path, bool full_names) {
  StatsArgs a;
  a.path = path;
  a.full_names = full_names;
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
      ->check(
          OneOf({"kernels", "memops", "api", "os", "cpu", "counters", "op", "category", "memory"}));
  app.add_option("--phase", args->phase,
                 "Only the steps of one phase of a serving trace (see gpuscope analyze)")
      ->check(OneOf({"prefill", "decode", "mixed", "other"}));
  AddCaptureOption(
      app, &args->captures,
      ", to attribute graph-replayed kernels to their captured ops with --by op (repeatable)");
  AddFormatOption(app, &args->format);
  app.add_flag("--full-names", args->full_names,
               "Show names whole instead of fitting them to the terminal");
  app.add_flag("--mangled", args->mangled, "Keep mangled kernel names as recorded");
  app.add_flag("--steady", args->steady,
               "Only the steady state: iterations after warm-up (see gpuscope analyze)");
  return [args, &common]() -> base::StatusOr<int> {
    if (auto files = JobFiles(args->path); !files.empty()) {
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      std::fputs(
          JobOutput(std::move(job), args->path, args->format, false, args->full_names, {}).c_str(),
          stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    args->stream = stdout;  // JSON goes out as it is made
    GPUSCOPE_ASSIGN_OR_RETURN(auto out, StatsOutput(trace, *args, common));
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
