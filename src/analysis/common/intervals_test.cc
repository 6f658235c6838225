#include "analysis/common/intervals.h"

#include <gtest/gtest.h>

#include <random>

namespace gpuscope::analysis {
namespace intervals_test {  // this file's helpers, apart in a unity build
namespace {

// MergeIntervalRuns gives what MergeIntervals gives, whatever the order of either run.
TEST(Intervals, RunsMergeAsAWholeSortWould) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Interval> v(rng() % 40);
    for (auto& [a, b] : v) {
      a = static_cast<int64_t>(rng() % 100);
      b = a + static_cast<int64_t>(rng() % 10);
    }
    const size_t mid = v.empty() ? 0 : rng() % (v.size() + 1);
    if (round % 2) {  // runs sorted, as callers usually hand them
      std::sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
      std::sort(v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    }
    std::vector<Interval> whole = v;
    MergeIntervals(whole);
    MergeIntervalRuns(v, mid);
    EXPECT_EQ(v, whole) << "round " << round;
  }
}

TEST(Intervals, RunsMergeTouchingAndNestedIntervals) {
  std::vector<Interval> v = {{0, 5}, {10, 20}, {5, 7}, {12, 13}, {30, 31}};
  MergeIntervalRuns(v, 2);
  EXPECT_EQ(v, (std::vector<Interval>{{0, 7}, {10, 20}, {30, 31}}));
  std::vector<Interval> past_end = {{3, 4}, {1, 2}};
  MergeIntervalRuns(past_end, 10);  // a mid past the end: one run
  EXPECT_EQ(past_end, (std::vector<Interval>{{1, 2}, {3, 4}}));
}

}  // namespace
}  // namespace intervals_test
}  // namespace gpuscope::analysis
