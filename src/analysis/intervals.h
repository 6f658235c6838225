#pragma once
// Time intervals [start, end) as pairs: merging overlapping ones (the busy time of a device or a
// thread, the host time a finding explains).

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuscope::analysis {

using Interval = std::pair<int64_t, int64_t>;

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
