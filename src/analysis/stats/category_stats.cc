// GpuTimeByCategory: the `stats --by category` table.

#include <algorithm>
#include <array>

#include "analysis/stats/stats.h"

namespace gpuscope::analysis {

std::vector<CategoryStat> GpuTimeByCategory(const model::Trace& t, const StatsOptions& opt,
                                            const CategoryRules& rules) {
  std::array<CategoryStat, kCategoryCount> by;
  for (size_t c = 0; c < kCategoryCount; ++c) by[c].category = static_cast<KernelCategory>(c);
  std::vector<KernelCategory> of = CategorizeKernels(t, rules);
  int64_t total = 0;
  auto add = [&](KernelCategory c, int64_t dur) {
    CategoryStat& s = by[static_cast<size_t>(c)];
    s.calls += 1;
    s.total_ns += dur;
    total += dur;
  };
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (opt.In(t.kernels.start_ns[i])) add(of[i], t.kernels.dur_ns[i]);
  for (size_t i = 0; i < t.memops.size(); ++i)
    if (opt.In(t.memops.start_ns[i])) add(KernelCategory::kCopy, t.memops.dur_ns[i]);
  std::vector<CategoryStat> out(by.begin(), by.end());
  for (CategoryStat& s : out)
    s.percent = total ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(total) : 0;
  std::stable_sort(out.begin(), out.end(), [](const CategoryStat& a, const CategoryStat& b) {
    return a.total_ns > b.total_ns;
  });
  return out;
}

}  // namespace gpuscope::analysis
