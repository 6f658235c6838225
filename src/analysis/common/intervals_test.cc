#include "analysis/common/intervals.h"

#include <gtest/gtest.h>

#include <random>

namespace gpuscope::analysis {
namespace intervals_test {  // this file's helpers, apart in a unity build
namespace {

// Up to 40 random intervals in two runs, v[0, mid) and v[mid, end), each sorted when `sorted`
// (as callers usually hand them).
std::pair<std::vector<Interval>, size_t> RandomRuns(std::mt19937& rng, bool sorted) {
  std::vector<Interval> v(rng() % 40);
  for (auto& [a, b] : v) {
    a = static_cast<int64_t>(rng() % 100);
    b = a + static_cast<int64_t>(rng() % 10);
  }
  const size_t mid = v.empty() ? 0 : rng() % (v.size() + 1);
  if (sorted) {
    std::sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  }
  return {v, mid};
}

// Intervals appended with AppendMerged (two runs, in start order or not) merge to the same union
// as the intervals themselves, and in start order nested ones cost no entry.
TEST(Intervals, AppendMergedKeepsTheUnion) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    const auto [raw, mid] = RandomRuns(rng, round % 2);
    std::vector<Interval> appended;
    size_t run = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (i == mid) run = appended.size();
      AppendMerged(appended, run, raw[i].first, raw[i].second);
    }
    if (mid == raw.size()) run = appended.size();
    std::vector<Interval> whole = raw;
    MergeIntervals(whole);
    MergeIntervalRuns(appended, run);
    EXPECT_EQ(appended, whole) << "round " << round;
  }
  std::vector<Interval> nested;
  for (auto [a, b] : {Interval{0, 100}, Interval{10, 20}, Interval{20, 30}, Interval{100, 120},
                      Interval{150, 160}})
    AppendMerged(nested, 0, a, b);
  EXPECT_EQ(nested, (std::vector<Interval>{{0, 120}, {150, 160}}));
  // A second run starts its own entries: the first run's last one is not extended by it.
  AppendMerged(nested, nested.size(), 155, 170);
  EXPECT_EQ(nested, (std::vector<Interval>{{0, 120}, {150, 160}, {155, 170}}));
}

// MergeIntervalRuns gives what MergeIntervals gives, whatever the order of either run.
TEST(Intervals, RunsMergeAsAWholeSortWould) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    auto [v, mid] = RandomRuns(rng, round % 2);
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
