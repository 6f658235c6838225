// `gpuscope memory TRACE`: device memory over time from the allocator's events - the peak, who
// held it, the allocated bytes at each steady step's end (render/memory_view.h).

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires

CommandBody AddMemoryCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<MemoryRequest>();
  app.add_option("trace", a->path, kTraceHelp)->required();
  app.add_option("--top", a->top, "Holders listed per device (the rest summed in one row)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--full-names", a->full_names, "Do not shorten names to fit the terminal");
  AddFormatOption(app, &a->format);
  return [a, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTrace(a->path, common));
    std::fputs(MemoryOutput(trace, *a).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
