#pragma once
// DurationSummary: the statistics every `stats` table gives for a group of durations (calls,
// total, mean, median, min, max, sample standard deviation), computed one way for all of them.

#include <cstdint>
#include <vector>

namespace gpuscope::analysis {

struct DurationSummary {
  uint64_t calls = 0;
  int64_t total_ns = 0;  // summed without overflow (128-bit), then stored
  int64_t avg_ns = 0;    // total / calls, rounded toward zero
  int64_t median_ns =
      0;  // the middle value; for an even count the mean of the middle two, rounded down
  int64_t min_ns = 0, max_ns = 0;
  int64_t stddev_ns =
      0;  // sample standard deviation (n - 1), 0 for a single value, as nsys stats gives it
};

// Sorts `durations` in place and summarises them; all zero for none.
DurationSummary SummarizeDurations(std::vector<int64_t>& durations);

}  // namespace gpuscope::analysis
