// Whether a folder of traces can be one job: ranks that hold the same events, a world size the
// traces disagree on or that the files contradict, and ranks whose trace stops early. Each is a
// note in the job's report; a truncated rank is never named the straggler from its partial data.

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "analysis/job/job_internal.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {
namespace {

std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) s += ", ...";
  return s;
}

int64_t MedianOf(std::vector<int64_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

void CheckIdentity(const std::vector<RankData>& ranks, JobReport& rep) {
  // World size: what each trace says, against the others and the files.
  std::map<int64_t, std::vector<int32_t>> said;
  for (const RankData& d : ranks) {
    if (d.world_size > 0) said[d.world_size].push_back(d.rank);
  }
  if (said.size() > 1) {
    std::string parts;
    for (const auto& [ws, rs] : said)
      parts += (parts.empty() ? "" : "; ") + std::to_string(ws) + " (ranks " + RankList(rs) + ")";
    rep.notes.push_back("the traces disagree on the world size: " + parts +
                        ": files of different jobs in one folder; analyze each job's folder "
                        "alone");
  }
  if (!said.empty()) {
    int64_t ws = said.rbegin()->first;
    std::vector<int32_t> beyond;
    for (const RankData& d : ranks)
      if (d.rank < 0 || d.rank >= ws) beyond.push_back(d.rank);
    if (!beyond.empty()) {
      rep.notes.push_back("rank(s) " + RankList(beyond) + " are beyond the world size " +
                          std::to_string(ws) +
                          " (ranks run from 0 to world size - 1): a file of another job or a "
                          "wrong rank in its name");
    }
    if (static_cast<int64_t>(ranks.size()) > ws) {
      rep.notes.push_back("the folder holds " + std::to_string(ranks.size()) +
                          " ranks but the traces say the job had " + std::to_string(ws) +
                          ": files of another job in the folder");
    }
  }

  // The same events under two ranks.
  std::map<uint64_t, std::vector<int32_t>> by_print;
  for (const RankData& d : ranks) {
    if (d.kernels > 0) by_print[d.fingerprint].push_back(d.rank);
  }
  for (const auto& [print, rs] : by_print) {
    if (rs.size() < 2) continue;
    rep.notes.push_back("ranks " + RankList(rs) +
                        " hold the same kernels at the same times to the nanosecond: one trace "
                        "copied under several ranks; comparisons between them say nothing");
  }

  // Truncated ranks: a GPU span or a count of collectives under half the ranks' median.
  if (ranks.size() < 3) return;  // two ranks: which one is short cannot be told from the other
  std::vector<int64_t> spans, calls;
  for (const RankData& d : ranks) {
    spans.push_back(d.last_ns - d.first_ns);
    calls.push_back(static_cast<int64_t>(d.calls.size()));
  }
  const int64_t span_median = MedianOf(spans), calls_median = MedianOf(calls);
  for (size_t r = 0; r < ranks.size(); ++r) {
    bool short_span = 2 * spans[r] < span_median;
    bool few_calls = calls_median > 0 && 2 * calls[r] < calls_median;
    if (!short_span && !few_calls) continue;
    rep.ranks[r].truncated = true;
    rep.notes.push_back(
        "rank " + std::to_string(rep.ranks[r].rank) + "'s trace stops early (" +
        (short_span ? "GPU span " + base::FormatDuration(spans[r]) + " against the ranks' median " +
                          base::FormatDuration(span_median)
                    : std::to_string(calls[r]) + " collective calls against the ranks' median " +
                          std::to_string(calls_median)) +
        "): a crash, a full disk or a profiler stopped early; it is not named straggler from its "
        "partial data");
  }
}

}  // namespace gpuscope::analysis::job_internal
