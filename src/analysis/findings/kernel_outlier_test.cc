// kernel-outlier on hand-built models: slow instances that recur with the run's repeats (a
// layer's GEMM in every layer, a GEMM once a step) are a population, not outliers (issue 50);
// a single slow instance still is one.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace kernel_outlier_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::Rule;
using test_models::us;

// 6 steps of one aten::mm launching "sgemm_64x64_nt" 11 times (no shapes recorded): 10 calls
// of 260-262 us and, at position `slow_at` of each step, one of 473 us (the classifier's GEMM,
// 1.8x the others: resnet50's sgemm_64x64_nt). `once_at` >= 0: only that step's instance is
// slow, 3x.
std::unique_ptr<Builder> StepsOfGemms(int slow_at, int once_at,
                                      const std::string& kernel = "sgemm_64x64_nt",
                                      const std::string& op = "aten::mm") {
  auto b = std::make_unique<Builder>();
  for (int s = 0; s < 6; ++s) {
    const int64_t t0 = s * 5000 * us;
    b->Step(s, t0, 5000 * us);
    for (int k = 0; k < 11; ++k) {
      const int64_t at = t0 + 10 * us + k * 400 * us;
      int64_t dur = (260 + (k + s) % 3) * us;
      if (once_at < 0 && k == slow_at) dur = (471 + s % 5) * us;
      if (once_at == s && k == 3) dur = 3 * 261 * us;
      b->Op(op, at, 30 * us);
      b->Launch(kernel, at + 5 * us, 10 * us, at + 20 * us, dur);
    }
  }
  return b;
}

TEST(Analyze, KernelOutlierNeverCallsAPerStepPopulationOutliers) {
  AnalyzeOptions all;
  all.min_impact_percent = 0;
  for (int slow_at : {0, 10}) {
    auto b = StepsOfGemms(slow_at, -1);
    EXPECT_TRUE(Rule(Analyze(b->Link(), all), "kernel-outlier").empty()) << slow_at;
  }
  auto once = StepsOfGemms(-1, 4);
  const AnalysisReport r = Analyze(once->Link(), all);
  auto f = Rule(r, "kernel-outlier");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->evidence.size(), 1u);
}

TEST(Analyze, KernelOutlierNeverComparesOneLayersGemmWithTheOthers) {
  // One pass (DeepSeek-V3's train.json, no shapes recorded): 4 layers, each calling one op that
  // runs three GEMMs of one kernel name and grid, the third 11x the others (another weight's
  // shape). The third of every layer is a population; one first GEMM made 8x slower is an outlier.
  auto build = [](bool planted) {
    auto b = std::make_unique<Builder>();
    for (int layer = 0; layer < 4; ++layer) {
      for (int g = 0; g < 3; ++g) {
        const int64_t at = (layer * 3 + g) * 2000 * us;
        int64_t dur = g == 2 ? 1500 * us : (136 + g) * us;
        if (planted && layer == 2 && g == 0) dur = 8 * 136 * us;
        b->Op("LinearWithGradAccumulationFP8Backward", at, 30 * us);
        b->Launch("cutlass_device_kernel", at + 5 * us, 10 * us, at + 20 * us, dur);
      }
    }
    return b;
  };
  AnalyzeOptions all;
  all.min_impact_percent = 0;
  auto layers = build(false);
  EXPECT_TRUE(Rule(Analyze(layers->Link(), all), "kernel-outlier").empty());
  auto planted = build(true);
  const AnalysisReport r = Analyze(planted->Link(), all);
  auto f = Rule(r, "kernel-outlier");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->evidence.size(), 1u);
}

TEST(Analyze, KernelOutlierNeverCallsAWaitingCollectiveAnOutlier) {
  // StepsOfGemms' single 3x instance, the kernel a collective (vLLM's custom all-reduce): the
  // slow one waited for a peer rank. The same instance of a GEMM is an outlier (above).
  auto b = StepsOfGemms(-1, 4, "void vllm::cross_device_reduce_1stage<float, 4>(...)",
                        "vllm::all_reduce");
  AnalyzeOptions all;
  all.min_impact_percent = 0;
  EXPECT_TRUE(Rule(Analyze(b->Link(), all), "kernel-outlier").empty());
}

}  // namespace
}  // namespace kernel_outlier_test
}  // namespace gpuscope::analysis
