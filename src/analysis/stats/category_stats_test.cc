#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/stats/stats.h"

namespace gpuscope::analysis {
namespace category_stats_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

// Every category listed once, largest first; copies and memsets count as copy; the window
// limits what counts.
TEST(CategoryStats, KernelTimeByCategoryWithCopies) {
  Builder b;
  b.Launch("ampere_sgemm_128x64_nn", 0, 5 * us, 10 * us, 60 * us);
  b.Launch("ampere_sgemm_128x64_nn", 10 * us, 5 * us, 70 * us, 60 * us);
  b.Launch("void at::native::vectorized_elementwise_kernel<4>(int)", 20 * us, 5 * us, 130 * us,
           20 * us);
  b.Launch("mystery", 30 * us, 5 * us, 150 * us, 10 * us);
  b.Copy(model::MemopKind::kHtoD, "cudaMemcpyAsync", 40 * us, 5 * us, 160 * us, 30 * us, 1024,
         model::MemoryKind::kPinned);
  b.Launch("ampere_sgemm_128x64_nn", 500 * us, 5 * us, 510 * us, 1000 * us);  // outside
  const model::Trace& t = b.Link();
  StatsOptions o;
  o.window_end = 400 * us;
  std::vector<CategoryStat> c = GpuTimeByCategory(t, o, *BuiltInCategoryRules());
  ASSERT_EQ(c.size(), kCategoryCount);
  EXPECT_EQ(c[0].category, KernelCategory::kGemm);
  EXPECT_EQ(c[0].calls, 2u);
  EXPECT_EQ(c[0].total_ns, 120 * us);
  EXPECT_NEAR(c[0].percent, 100.0 * 120 / 180, 1e-9);  // of 180 us of GPU ops
  EXPECT_EQ(c[1].category, KernelCategory::kCopy);
  EXPECT_EQ(c[1].total_ns, 30 * us);
  EXPECT_EQ(c[2].category, KernelCategory::kElementwise);
  EXPECT_EQ(c[3].category, KernelCategory::kOther);
  EXPECT_EQ(c[3].total_ns, 10 * us);
  EXPECT_NEAR(c[3].percent, 100.0 * 10 / 180, 1e-9);
  for (size_t i = 4; i < c.size(); ++i) EXPECT_EQ(c[i].calls, 0u);
}

}  // namespace
}  // namespace category_stats_test
}  // namespace gpuscope::analysis
