#include "cli/load.h"

#include <cstdio>

#include "base/text.h"
#include "import/registry.h"

namespace gpuscope::cli {

base::StatusOr<model::Trace> LoadTrace(const std::string& path, const CommonOptions& common) {
  import::ImportOptions options;
  options.threads = common.threads;
  auto trace = import::ImportTrace(path, options);
  if (!trace.ok()) return trace.status();
  const model::Trace& t = *trace;
  if (!t.meta.import_error.empty()) {
    std::fprintf(stderr, "gpuscope: warning: %s: %s; kept the %s events read before it\n",
                 path.c_str(), t.meta.import_error.c_str(), base::FormatCount(t.EventCount()).c_str());
  }
  if (!t.problems.empty()) {
    std::string kinds;
    for (const auto& [kind, e] : t.problems.entries()) {
      if (!kinds.empty()) kinds += ", ";
      kinds += kind + " x" + std::to_string(e.count);
    }
    std::fprintf(stderr, "gpuscope: note: %s: %s recoverable problem(s): %s (details: gpuscope info)\n",
                 path.c_str(), base::FormatCount(t.problems.total()).c_str(), kinds.c_str());
  }
  return trace;
}

base::StatusOr<model::Trace> LoadTimeline(const std::string& path, const CommonOptions& common, const char* command) {
  auto trace = LoadTrace(path, common);
  if (trace.ok() && trace->summary_only()) {
    return base::Status::Error(path + ": a summary without a timeline (" + trace->meta.format_version +
                               "); `gpuscope stats` prints it, `gpuscope " + command +
                               "` needs the trace itself (results.db, results.csv, or the rocprofv3 output)");
  }
  return trace;
}

}  // namespace gpuscope::cli
