#include "analysis/steps/kernel_period.h"

#include <algorithm>
#include <map>

namespace gpuscope::analysis {

KernelPeriod FindKernelPeriod(const model::Trace& t) {
  KernelPeriod out;
  std::map<int, size_t> per_device;
  for (int16_t d : t.kernels.device) ++per_device[d];
  if (per_device.empty()) return out;
  auto busiest = std::max_element(per_device.begin(), per_device.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  out.device = busiest->first;
  std::vector<size_t> rows;  // kernels are sorted by start (the linker)
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (t.kernels.device[i] == out.device) rows.push_back(i);
  const size_t n = rows.size();
  for (size_t lag = 2; lag <= std::min(kMaxPeriodKernels, n / 3); ++lag) {
    // 64 pairs spread over the trace first (most lags fail there, so a long trace costs
    // O(64) per lag), then every pair, stopping once too many differ to reach 90%.
    const size_t pairs = n - lag, allowed = pairs / 10;
    size_t misses = 0;
    for (size_t k = 0; k < 64 && misses <= 6; ++k) {
      size_t i = k * pairs / 64;
      misses += t.kernels.name[rows[i]] != t.kernels.name[rows[i + lag]];
    }
    if (misses > 6) continue;
    misses = 0;
    for (size_t i = 0; i < pairs && misses <= allowed; ++i)
      misses += t.kernels.name[rows[i]] != t.kernels.name[rows[i + lag]];
    if (misses > allowed) continue;
    if (lag < kMinPeriodKernels) return out;  // a repeating pair of kernels, not a loop's body
    out.kernels = lag;
    for (size_t i = 0; i + lag < n; i += lag)
      out.period_ns.push_back(t.kernels.start_ns[rows[i + lag]] - t.kernels.start_ns[rows[i]]);
    return out;
  }
  return out;
}

}  // namespace gpuscope::analysis
