// `gpuscope info TRACE`: what the file is and what it holds.

#include <cstdio>
#include <string>

#include "analysis/summary.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "render/info_view.h"

namespace gpuscope::cli {
namespace {

struct InfoArgs {
  std::string path;
  std::string format = "table";
};

}  // namespace

CommandBody AddInfoCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<InfoArgs>();
  app.add_option("trace", args->path, "Trace file")->required();
  app.add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    analysis::TraceSummary s = analysis::Summarize(trace);
    if (args->format == "json")
      std::fputs(render::InfoJson(trace, s).c_str(), stdout);
    else if (args->format == "csv")
      std::fputs(render::InfoCsv(trace, s).c_str(), stdout);
    else
      std::fputs(render::InfoText(trace, s).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
