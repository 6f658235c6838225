// `gpuscope info TRACE`: what the file is and what it holds.

#include <cstdio>
#include <string>

#include "analysis/timeline/summary.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/job_load.h"
#include "cli/load.h"
#include "cli/outputs.h"
#include "output/text_table.h"
#include "render/info_view.h"

namespace gpuscope::cli {
namespace {

struct InfoArgs {
  std::string path;
  std::string format = "table";
};

}  // namespace

std::string FitTerminal(std::string text, bool full_names) {
  text = base::EscapeControl(text);  // names cannot drive the terminal
  if (full_names) return text;
  return base::WrapLongLines(text, output::TerminalWidth());
}

std::string InfoOutput(model::Trace& trace, const std::string& format) {
  analysis::TraceSummary s = analysis::Summarize(trace);
  if (format == "json") return render::InfoJson(trace, s);
  if (format == "csv") return render::InfoCsv(trace, s);
  return FitTerminal(render::InfoText(trace, s), false);
}

CommandBody AddInfoCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<InfoArgs>();
  app.add_option("trace", args->path, kTraceHelp)->required();
  app.add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args, &common]() -> base::StatusOr<int> {
    if (auto files = JobFiles(args->path); !files.empty()) {
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      std::fputs(JobOutput(job, args->path, args->format, false, false, {}).c_str(), stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    std::fputs(InfoOutput(trace, args->format).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
