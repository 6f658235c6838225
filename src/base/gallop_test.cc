#include "base/gallop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace gpuscope::base {
namespace {

// Every start position at or before the point, every point: the same as partition_point.
TEST(GallopTo, MatchesPartitionPointFromEveryStart) {
  for (size_t n : {0, 1, 2, 3, 7, 8, 9, 33}) {
    std::vector<int> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>(2 * i);
    for (int x = -1; x <= static_cast<int>(2 * n + 1); ++x) {
      auto before = [x](int e) { return e < x; };
      const auto want = std::partition_point(v.begin(), v.end(), before);
      const size_t point = static_cast<size_t>(want - v.begin());
      for (size_t from = 0; from <= point; ++from)
        EXPECT_EQ(GallopTo(v, from, before), want) << "n " << n << " x " << x << " from " << from;
    }
  }
}

// A start past the end is clamped to it.
TEST(GallopTo, StartPastTheEnd) {
  std::vector<int> v{1, 2, 3};
  EXPECT_EQ(GallopTo(v, 10, [](int e) { return e < 100; }), v.end());
}

// It looks at few elements for a point close to the start, however long the range.
TEST(GallopTo, ProbesFewElementsNearTheStart) {
  std::vector<int> v(1'000'000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  int probes = 0;
  auto it = GallopTo(v, 500'000, [&](int e) { return ++probes, e < 500'003; });
  EXPECT_EQ(*it, 500'003);
  EXPECT_LE(probes, 6);
}

}  // namespace
}  // namespace gpuscope::base
