#pragma once
// The upper median of a list: its middle value, of an even count the upper of the two middle
// ones (what the one-time and recording checks compare against), found without sorting the list
// whole. T{} of an empty list. (job/ averages the two middle values: a different statistic.)

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpuscope::analysis {

template <typename T>
T UpperMedian(std::vector<T> v) {
  if (v.empty()) return T{};
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace gpuscope::analysis
