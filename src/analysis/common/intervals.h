#pragma once
// Time intervals [start, end) as pairs: merging overlapping ones (the busy time of a device or a
// thread, the host time a finding explains).

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace gpuscope::analysis {

using Interval = std::pair<int64_t, int64_t>;

// Length of the intersection of [s, e) and [a, b) (0 when they do not meet).
inline int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) {
  return std::max<int64_t>(0, std::min(e, b) - std::max(s, a));
}

// Time of [a, b) covered by `merged` (sorted, disjoint intervals, as MergeIntervals leaves them;
// a whole vector or a run of one).
inline int64_t CoveredWithin(std::span<const Interval> merged, int64_t a, int64_t b) {
  if (b <= a) return 0;
  auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(a, INT64_MAX));
  if (it != merged.begin()) --it;
  int64_t covered = 0;
  for (; it != merged.end() && it->first < b; ++it) covered += Overlap(it->first, it->second, a, b);
  return covered;
}

// The busy stretch of `merged` that runs up to b, from no earlier than a: how long the thread had
// been working when b came (0: it was idle right before b).
inline int64_t BusyRunBefore(std::span<const Interval> merged, int64_t a, int64_t b) {
  auto it = std::lower_bound(merged.begin(), merged.end(), std::make_pair(b, INT64_MIN));
  if (it == merged.begin()) return 0;
  --it;  // the last interval starting before b
  return it->second >= b ? b - std::max(it->first, a) : 0;
}

// Sorts and merges overlapping or touching intervals in place.
inline void MergeIntervals(std::vector<Interval>& v) {
  // Most callers collect from tables sorted by time: checking costs one pass, sorting anyway was
  // 8% of `analyze` on a 1 GB trace.
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (out > 0 && v[i].first <= v[out - 1].second)
      v[out - 1].second = std::max(v[out - 1].second, v[i].second);
    else
      v[out++] = v[i];
  }
  v.resize(out);
}

// Appends [a, b) to intervals collected in start order from `run` on: merged into the last one
// when it starts inside it (a Python frame nested in the one before costs no entry: millions of
// frames collapse to a few outer ones). Out of order, appended as is; MergeIntervals (or
// MergeIntervalRuns) makes the union the same either way.
inline void AppendMerged(std::vector<Interval>& v, size_t run, int64_t a, int64_t b) {
  if (v.size() > run && a >= v.back().first && a <= v.back().second)
    v.back().second = std::max(v.back().second, b);
  else
    v.emplace_back(a, b);
}

// MergeIntervals of two runs, v[0, mid) and v[mid, end), each usually sorted already (a thread's
// ops, then its Python frames): the runs are merged in linear time instead of sorting the whole
// (a sort of a 1 GB trace's millions of host intervals was 6% of `analyze`).
inline void MergeIntervalRuns(std::vector<Interval>& v, size_t mid) {
  const auto m = v.begin() + static_cast<std::ptrdiff_t>(std::min(mid, v.size()));
  if (!std::is_sorted(v.begin(), m)) std::sort(v.begin(), m);
  if (!std::is_sorted(m, v.end())) std::sort(m, v.end());
  std::inplace_merge(v.begin(), m, v.end());
  MergeIntervals(v);
}

}  // namespace gpuscope::analysis
