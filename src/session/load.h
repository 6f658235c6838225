#pragma once
// LoadTrace: imports a trace for a command and reports recoverable problems on stderr once.

#include <string>
#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "base/status.h"
#include "model/trace.h"
#include "session/options.h"

namespace gpuscope::session {

// The one-line warning for a file that broke part-way (`error`, after `kept` events).
std::string PartialReadWarning(const std::string& path, const std::string& error, uint64_t kept);

base::StatusOr<model::Trace> LoadTrace(const std::string& path, const CommonOptions& common);

// A warning or note of a command (loading, --phase), to stderr or to the caller's list.
void Tell(const CommonOptions& common, const std::string& line);

// LoadTrace for commands that need events on a timeline (analyze, diff, convert): refuses a
// summary-only source (rocprof *.stats.csv) in one line that names what to give instead.
base::StatusOr<model::Trace> LoadTimeline(const std::string& path, const CommonOptions& common,
                                          const char* command);

// The graphs captured in each `--capture` trace (named by the file's name); a file that holds no
// capture is an error naming it.
base::StatusOr<std::vector<analysis::CapturedGraph>> LoadCaptures(
    const std::vector<std::string>& paths, const CommonOptions& common);

}  // namespace gpuscope::session
