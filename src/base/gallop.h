#pragma once
// GallopTo: a partition point found from a known lower position by galloping (steps of 1, 2, 4,
// ... then a binary search of the last step), for searches that move forward through a sorted
// range: O(log d) for a point d places on, where std::partition_point costs O(log n) over the
// whole range and touches its far-away middle first.

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace gpuscope::base {

// The first element of `range` at or after index `from` for which `before` is false; `before`
// must be true for every element before that point and false from it on (a partitioned range),
// and true for every element before `from`. The same iterator as std::partition_point over the
// whole range.
template <typename Range, typename Pred>
auto GallopTo(const Range& range, size_t from, Pred before) {
  const auto begin = std::begin(range);
  const size_t n = static_cast<size_t>(std::end(range) - begin);
  size_t lo = std::min(from, n), step = 1;
  // Invariant: every element before lo is before the point.
  while (lo < n) {
    const size_t probe = std::min(n, lo + step) - 1;
    if (!before(begin[probe])) {
      return std::partition_point(begin + lo, begin + probe, before);
    }
    lo = probe + 1, step *= 2;
  }
  return begin + n;
}

}  // namespace gpuscope::base
