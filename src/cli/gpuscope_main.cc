#include "cli/gpuscope_main.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "base/text.h"
#include "cli/commands.h"

namespace gpuscope::cli {

int Main(int argc, char** argv) {
  CLI::App app{"gpuscope: GPU profiler front end and trace analyzer"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpuscope 0.1.0");
  CommonOptions common;
  app.fallthrough();  // global options (--threads, --align-clocks) also after the command
  app.add_option("--threads", common.threads, "Parse threads (default: one per core, at most 8)")
      ->check(CLI::Range(0, 64));
  app.add_flag("--align-clocks", common.align_clocks,
               "Where GPU ops start before the calls that launched them (CPU and GPU clocks "
               "disagree), shift that GPU's events so none does (see `gpuscope info`)");
  CLI::App* info =
      app.add_subcommand("info", "What a trace holds: format, devices, span, counts, problems");
  CLI::App* stats =
      app.add_subcommand("stats", "Per-kernel, memory-operation, API and CPU-op summary tables");
  CLI::App* analyze = app.add_subcommand(
      "analyze", "Ranked findings: what slows the run, what it costs, where, the fix");
  CLI::App* roofline = app.add_subcommand(
      "roofline", "Kernel efficiency: each op's FLOPs and bytes against the device's peaks");
  CLI::App* diff = app.add_subcommand(
      "diff", "Compare two runs (before / after a change); gate regressions in CI");
  CLI::App* convert =
      app.add_subcommand("convert", "Write a trace as Chrome/Perfetto JSON, .rpd or CSV tables");
  CLI::App* report = app.add_subcommand(
      "report", "One self-contained HTML page: summary, findings, charts, timeline");
  CLI::App* run = app.add_subcommand(
      "run", "Profile a program unchanged: gpuscope run --stats --analyze -- python infer.py");
  CLI::App* help =
      app.add_subcommand("help", "Explain a topic: gpuscope help findings | formats | roofline");
  std::vector<std::pair<CLI::App*, CommandBody>> commands = {
      {info, AddInfoCommand(*info, common)},
      {stats, AddStatsCommand(*stats, common)},
      {analyze, AddAnalyzeCommand(*analyze, common)},
      {roofline, AddRooflineCommand(*roofline, common)},
      {diff, AddDiffCommand(*diff, common)},
      {convert, AddConvertCommand(*convert, common)},
      {report, AddReportCommand(*report, common)},
      {run, AddRunCommand(*run, common)},
      {help, AddHelpCommand(*help)},
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "gpuscope: %s (see gpuscope --help)\n", e.what());
    return 2;
  }
  base::StatusOr<int> rc = 2;
  for (auto& [sub, body] : commands) {
    if (sub->parsed()) rc = body();
  }
  if (!rc.ok()) {
    std::fprintf(stderr, "gpuscope: %s\n", base::OneLine(rc.status().message()).c_str());
    return 2;
  }
  std::fflush(stdout);
  return *rc;
}

}  // namespace gpuscope::cli
