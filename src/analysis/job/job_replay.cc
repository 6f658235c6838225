#include "analysis/job/job_replay.h"

#include <algorithm>
#include <climits>

namespace gpuscope::analysis {

int64_t ReplayJob(const JobTimeline& tl, const JobFix* fix) {
  const size_t n = tl.ranks.size(), m = tl.transfer_ns.size();
  if (n == 0) return 0;
  std::vector<uint32_t> members(m, 0), arrived(m, 0);
  std::vector<int64_t> last_arrival(m, INT64_MIN);
  std::vector<std::vector<size_t>> waiting(m);  // ranks arrived at the instance
  for (const auto& r : tl.ranks) {
    for (const auto& c : r.calls) ++members[c.instance];
  }
  std::vector<size_t> pos(n, 0);
  std::vector<int64_t> at(n);  // where each rank is: its previous collective's end
  int64_t first = INT64_MAX;
  for (size_t r = 0; r < n; ++r) at[r] = tl.ranks[r].start_ns, first = std::min(first, at[r]);
  std::vector<size_t> ready(n);
  for (size_t r = 0; r < n; ++r) ready[r] = r;
  while (!ready.empty()) {
    size_t r = ready.back();
    ready.pop_back();
    const auto& calls = tl.ranks[r].calls;
    if (pos[r] >= calls.size()) continue;
    const JobTimeline::Call& c = calls[pos[r]];
    int64_t cut = 0;
    if (fix && r < fix->phase_cut.size() && pos[r] < fix->phase_cut[r].size())
      cut = fix->phase_cut[r][pos[r]];
    int64_t arrival = at[r] + std::max<int64_t>(0, c.phase_ns - cut);
    size_t i = c.instance;
    last_arrival[i] = std::max(last_arrival[i], arrival);
    waiting[i].push_back(r);
    if (++arrived[i] < members[i]) continue;
    int64_t tcut = fix && i < fix->transfer_cut.size() ? fix->transfer_cut[i] : 0;
    int64_t end = last_arrival[i] + std::max<int64_t>(0, tl.transfer_ns[i] - tcut);
    for (size_t w : waiting[i]) {
      at[w] = std::max(end + tl.ranks[w].calls[pos[w]].end_dev_ns, last_arrival[i]);
      ++pos[w];
      ready.push_back(w);
    }
  }
  int64_t last = INT64_MIN;
  for (size_t r = 0; r < n; ++r) {
    if (pos[r] < tl.ranks[r].calls.size()) return -1;  // stuck: the orders disagree
    last = std::max(last, at[r] + tl.ranks[r].tail_ns);
  }
  return last - first;
}

}  // namespace gpuscope::analysis
