#include "analysis/job/job_replay.h"

#include <algorithm>
#include <climits>

namespace gpuscope::analysis {
namespace {

template <typename T>
T At(const std::vector<std::vector<T>>* v, size_t r, size_t c) {
  return v && r < v->size() && c < (*v)[r].size() ? (*v)[r][c] : T{};
}

}  // namespace

int64_t ReplayJob(const JobTimeline& tl, const JobFix* fix) {
  const size_t n = tl.ranks.size(), m = tl.transfer_ns.size();
  if (n == 0) return 0;
  const auto* cut_v = fix ? &fix->phase_cut : nullptr;
  const auto* detach = fix ? &fix->detach : nullptr;
  std::vector<uint32_t> members(m, 0), arrived(m, 0);
  std::vector<int64_t> last_arrival(m, INT64_MIN);
  std::vector<std::vector<size_t>> waiting(m);  // ranks arrived at the instance
  for (const auto& r : tl.ranks) {
    for (const auto& c : r.calls) ++members[c.instance];
  }
  std::vector<size_t> pos(n, 0);
  // Per rank: where its previous collective ended, where the group met there (its last
  // arrival), and where its compute has got to.
  std::vector<int64_t> ended(n), met(n), compute(n);
  int64_t first = INT64_MAX;
  for (size_t r = 0; r < n; ++r) {
    ended[r] = met[r] = compute[r] = tl.ranks[r].start_ns;
    first = std::min(first, tl.ranks[r].start_ns);
  }
  auto detached = [&](size_t r) { return pos[r] > 0 && At(detach, r, pos[r] - 1) != 0; };
  std::vector<size_t> ready(n);
  for (size_t r = 0; r < n; ++r) ready[r] = r;
  while (!ready.empty()) {
    size_t r = ready.back();
    ready.pop_back();
    const auto& calls = tl.ranks[r].calls;
    if (pos[r] >= calls.size()) continue;
    const JobTimeline::Call& c = calls[pos[r]];
    const int64_t cut = At(cut_v, r, pos[r]);
    int64_t done = 0;  // the rank's compute for this call done
    if (pos[r] == 0) {
      done = tl.ranks[r].start_ns + std::max<int64_t>(0, c.phase_ns - cut);
    } else if (!c.after_end) {
      done = compute[r] + std::max<int64_t>(0, c.work_ns - cut);
    } else if (detached(r)) {  // the fix: this phase waits for the ranks to meet, not the end
      done = std::max(compute[r], met[r]) + std::max<int64_t>(0, c.phase_ns - cut);
    } else {
      done = ended[r] + std::max<int64_t>(0, c.phase_ns - cut);
    }
    compute[r] = done;
    const int64_t at = pos[r] == 0 ? done : std::max(done, ended[r]);
    size_t i = c.instance;
    last_arrival[i] = std::max(last_arrival[i], at);
    waiting[i].push_back(r);
    if (++arrived[i] < members[i]) continue;
    int64_t end = last_arrival[i] + tl.transfer_ns[i];
    for (size_t w : waiting[i]) {
      ended[w] = std::max(end + tl.ranks[w].calls[pos[w]].end_dev_ns, last_arrival[i]);
      met[w] = last_arrival[i];
      ++pos[w];
      ready.push_back(w);
    }
  }
  int64_t last = INT64_MIN;
  for (size_t r = 0; r < n; ++r) {
    if (pos[r] < tl.ranks[r].calls.size()) return -1;  // stuck: the orders disagree
    bool waits = tl.ranks[r].tail_after_end && !detached(r) && pos[r] > 0;
    int64_t from = pos[r] == 0 ? tl.ranks[r].start_ns
                   : waits     ? ended[r]
                               : std::max(compute[r], detached(r) ? met[r] : compute[r]);
    last = std::max({last, from + tl.ranks[r].tail_ns, ended[r]});
  }
  return last - first;
}

}  // namespace gpuscope::analysis
