#include "analysis/stats/duration_summary.h"

#include <algorithm>
#include <cmath>

namespace gpuscope::analysis {

DurationSummary SummarizeDurations(std::vector<int64_t>& d) {
  DurationSummary s;
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  const size_t n = d.size();
  __int128 sum = 0;
  for (int64_t v : d) sum += v;
  s.calls = n;
  s.total_ns = static_cast<int64_t>(sum);
  s.avg_ns = static_cast<int64_t>(sum / static_cast<__int128>(n));
  // Mean of the middle pair without overflow, rounded toward -inf.
  s.median_ns = n % 2 == 1 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
  s.min_ns = d.front();
  s.max_ns = d.back();
  if (n > 1) {
    long double mean = static_cast<long double>(sum) / n;
    long double sq = 0;
    for (int64_t v : d) sq += (v - mean) * (v - mean);
    s.stddev_ns = static_cast<int64_t>(std::llround(std::sqrt(sq / (n - 1))));
  }
  return s;
}

}  // namespace gpuscope::analysis
