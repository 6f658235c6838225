#pragma once
// A folder of per-rank traces of one distributed job (Kineto rank-N files, one .rpd or nsys
// export per rank): finding its files, loading each as a rank, and what `analyze`, `stats` and
// `info` print for it.

#include <string>
#include <vector>

#include "analysis/job/job.h"
#include "base/status.h"
#include "session/options.h"

namespace gpuscope::session {

// The traces of a job folder in name order: >= 2 files gpuscope reads one per rank (*.json,
// *.json.gz, *.rpd, *.sqlite); empty when `path` is a file, or a folder of one run's files
// (rocprofv3 databases or CSVs, results.db, events.csv), which is read as one trace.
std::vector<std::string> JobFiles(const std::string& path);

// A job as its ranks' summaries (analysis/job/rank_timeline.h): one rank's trace is in memory
// only while it is summarized.
struct LoadedJob {
  std::vector<analysis::RankTimeline> ranks;  // in file order
};

// One rank's summary from its trace file. Its rank is its distributedInfo rank, else the number
// after "rank" in its name; a file without either is an error naming it.
base::StatusOr<analysis::RankTimeline> LoadRank(const std::string& file,
                                                const CommonOptions& common);

// Summaries as one job: two of one rank is an error naming both files.
base::StatusOr<LoadedJob> JobOfRanks(std::vector<analysis::RankTimeline> ranks);

// Loads and summarizes every file, one at a time.
base::StatusOr<LoadedJob> LoadJob(const std::vector<std::string>& files,
                                  const CommonOptions& common);

// What `analyze` (findings = true), `stats` and `info` print for a job, in `format`.
std::string JobOutput(LoadedJob job, const std::string& path, const std::string& format,
                      bool findings, bool full_names, const analysis::JobOptions& options);

}  // namespace gpuscope::session
