#pragma once
// Time intervals [start, end) as pairs: merging overlapping ones (the busy time of a device or a
// thread, the host time a finding explains).

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuscope::analysis {

using Interval = std::pair<int64_t, int64_t>;

// Length of the intersection of [s, e) and [a, b) (0 when they do not meet).
inline int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) {
  return std::max<int64_t>(0, std::min(e, b) - std::max(s, a));
}

// Sorts and merges overlapping or touching intervals in place.
inline void MergeIntervals(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (out > 0 && v[i].first <= v[out - 1].second)
      v[out - 1].second = std::max(v[out - 1].second, v[i].second);
    else
      v[out++] = v[i];
  }
  v.resize(out);
}

}  // namespace gpuscope::analysis
