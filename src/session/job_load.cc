#include "session/job_load.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "render/job_view.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::session {
namespace {

// 3 from "rank-3.json", "worker_rank3.pt.trace.json.gz"; -1 when the name holds no rank.
int32_t RankInName(const std::string& name) {
  size_t at = name.rfind("rank");
  if (at == std::string::npos) return -1;
  size_t p = at + 4;
  while (p < name.size() && (name[p] == '-' || name[p] == '_')) ++p;
  int64_t v = 0;
  size_t digits = 0;
  while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p])) && digits < 9)
    v = v * 10 + (name[p++] - '0'), ++digits;
  return digits ? static_cast<int32_t>(v) : -1;
}

}  // namespace

std::vector<std::string> JobFiles(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {};
  std::vector<std::string> out;
  for (auto it = std::filesystem::directory_iterator(path, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string name = it->path().filename().string();
    // One run's files: read as one trace (import/directory_import.h).
    if (name.ends_with("_results.db") || name.ends_with("_trace.csv") || name == "results.db" ||
        name == "events.csv")
      return {};
    if (name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".rpd") ||
        name.ends_with(".sqlite"))
      out.push_back(it->path().string());
  }
  if (out.size() < 2) return {};
  std::sort(out.begin(), out.end());
  return out;
}

base::StatusOr<analysis::RankTimeline> LoadRank(const std::string& file,
                                                const CommonOptions& common) {
  std::string dir = std::filesystem::path(file).parent_path().string();
  auto loaded = LoadTimeline(file, common, "analyze");
  if (!loaded.ok()) {
    return base::Status::Error(
        dir + ": a directory read as one job's per-rank traces: " + loaded.status().message());
  }
  int32_t rank = loaded->meta.rank;
  if (rank < 0) rank = RankInName(std::filesystem::path(file).filename().string());
  if (rank < 0) {
    return base::Status::Error(
        dir + ": a directory of several traces, read as one job's per-rank traces, but " + file +
        " names no rank (no distributedInfo, no rank number in its name); give one trace, or a "
        "folder of rank-N files of one job");
  }
  return analysis::SummarizeRank(*loaded, rank, file);
}

base::StatusOr<LoadedJob> JobOfRanks(std::vector<analysis::RankTimeline> ranks) {
  std::map<int32_t, std::string> seen;
  for (const auto& r : ranks) {
    auto [it, added] = seen.emplace(r.rank, r.path);
    if (!added) {
      return base::Status::Error(r.path + ": rank " + std::to_string(r.rank) + " again (also " +
                                 it->second +
                                 "); a job folder holds one trace per rank of one run: move the "
                                 "other runs' traces out");
    }
  }
  return LoadedJob{std::move(ranks)};
}

base::StatusOr<LoadedJob> LoadJob(const std::vector<std::string>& files,
                                  const CommonOptions& common) {
  std::vector<analysis::RankTimeline> ranks;
  for (const auto& file : files) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto rank, LoadRank(file, common));
    ranks.push_back(std::move(rank));
  }
  return JobOfRanks(std::move(ranks));
}

std::string JobOutput(LoadedJob job, const std::string& path, const std::string& format,
                      bool findings, bool full_names, const analysis::JobOptions& options) {
  analysis::JobReport r = analysis::AnalyzeJob(std::move(job.ranks), options);
  render::JobView v{path, full_names, findings};
  if (format == "json") return render::JobJson(r, v);
  if (format == "csv") return render::JobCsv(r, v);
  return FitTerminal(render::JobText(r, v), full_names);
}

}  // namespace gpuscope::session
