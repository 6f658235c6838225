#pragma once
// A folder of per-rank traces of one distributed job (Kineto rank-N files, one .rpd or nsys
// export per rank): finding its files, loading each as a rank, and what `analyze`, `stats` and
// `info` print for it.

#include <string>
#include <vector>

#include "analysis/job/job.h"
#include "base/status.h"
#include "model/trace.h"
#include "session/options.h"

namespace gpuscope::session {

// The traces of a job folder in name order: >= 2 files gpuscope reads one per rank (*.json,
// *.json.gz, *.rpd, *.sqlite); empty when `path` is a file, or a folder of one run's files
// (rocprofv3 databases or CSVs, results.db, events.csv), which is read as one trace.
std::vector<std::string> JobFiles(const std::string& path);

struct LoadedJob {
  std::vector<model::Trace> traces;
  std::vector<analysis::RankInput> ranks;  // point into traces
};

// Loads every file; each one's rank is its distributedInfo rank, else the number after "rank" in
// its name. A file without either, or two files of one rank, is an error naming them.
base::StatusOr<LoadedJob> LoadJob(const std::vector<std::string>& files,
                                  const CommonOptions& common);

// What `analyze` (findings = true), `stats` and `info` print for a job, in `format`.
std::string JobOutput(const LoadedJob& job, const std::string& path, const std::string& format,
                      bool findings, bool full_names, const analysis::JobOptions& options);

}  // namespace gpuscope::session
