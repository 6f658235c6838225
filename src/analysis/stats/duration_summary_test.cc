#include "analysis/stats/duration_summary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gpuscope::analysis {
namespace duration_summary_test {  // this file's helpers, apart in a unity build
namespace {

TEST(DurationSummary, NsysDefinitions) {
  std::vector<int64_t> d = {40, 10, 30, 20};
  DurationSummary s = SummarizeDurations(d);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.total_ns, 100);
  EXPECT_EQ(s.avg_ns, 25);
  EXPECT_EQ(s.median_ns, 25);  // mean of the middle two
  EXPECT_EQ(s.min_ns, 10);
  EXPECT_EQ(s.max_ns, 40);
  EXPECT_EQ(s.stddev_ns, 13);  // sqrt(500 / 3) = 12.9 (sample stddev)
  std::vector<int64_t> one = {7};
  EXPECT_EQ(SummarizeDurations(one).stddev_ns, 0);
  std::vector<int64_t> none;
  EXPECT_EQ(SummarizeDurations(none).calls, 0u);
}

TEST(DurationSummary, NoOverflowNearTheInt64Limit) {
  const int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  std::vector<int64_t> d = {big, big - 2};
  DurationSummary s = SummarizeDurations(d);
  EXPECT_EQ(s.avg_ns, big - 1);  // the sum exceeds int64; the mean does not
  EXPECT_EQ(s.median_ns, big - 1);
}

}  // namespace
}  // namespace duration_summary_test
}  // namespace gpuscope::analysis
