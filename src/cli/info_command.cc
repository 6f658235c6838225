// `gpuscope info TRACE`: what the file is and what it holds.

#include <cstdio>
#include <string>

#include "analysis/timeline/summary.h"
#include "base/text.h"
#include "cli/commands.h"
#include "output/text_table.h"
#include "render/info_view.h"
#include "session/job_load.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

struct InfoArgs {
  std::string path;
  std::string format = "table";
};

}  // namespace

CommandBody AddInfoCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<InfoArgs>();
  app.add_option("trace", args->path, kTraceHelp)->required();
  AddFormatOption(app, &args->format);
  return [args, &common]() -> base::StatusOr<int> {
    if (auto files = JobFiles(args->path); !files.empty()) {
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      std::fputs(JobOutput(std::move(job), args->path, args->format, false, false, {}).c_str(),
                 stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(args->path, common));
    std::fputs(InfoOutput(trace, args->format).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
