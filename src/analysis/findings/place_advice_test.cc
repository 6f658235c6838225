// Advice keyed to well-known places and the one gpu-idle finding of every cause (issue 56), on
// hand-built models.

#include "analysis/findings/place_advice.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace place_advice_test {  // this file's helpers, apart in a unity build
namespace {

using internal::KnownPlace;
using internal::PlaceAdvice;
using internal::PlaceOfName;
using test_models::Builder;
using test_models::Rule;
using test_models::us;

TEST(PlaceAdvice, TheWellKnownPlacesGetTheirOwnFix) {
  EXPECT_EQ(PlaceOfName("Optimizer.step#AdamW.step"), KnownPlace::kOptimizerStep);
  EXPECT_EQ(PlaceOfName("Optimizer.zero_grad#AdamW.zero_grad"), KnownPlace::kZeroGrad);
  EXPECT_EQ(PlaceOfName("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
            KnownPlace::kDataLoader);
  EXPECT_EQ(PlaceOfName("aten::_local_scalar_dense"), KnownPlace::kItem);
  EXPECT_EQ(PlaceOfName("aten::_to_copy"), KnownPlace::kToDevice);
  EXPECT_EQ(PlaceOfName("aten::mm"), KnownPlace::kNone);
  auto advice = [](KnownPlace p, std::string_view rule) {
    return std::string(PlaceAdvice(p, rule));
  };
  EXPECT_NE(advice(KnownPlace::kOptimizerStep, "launch-bound").find("fused=True"),
            std::string::npos);
  EXPECT_NE(advice(KnownPlace::kOptimizerStep, "cpu-op-storm").find("foreach=True"),
            std::string::npos);
  EXPECT_NE(advice(KnownPlace::kZeroGrad, "launch-bound").find("set_to_none=True"),
            std::string::npos);
  EXPECT_NE(advice(KnownPlace::kDataLoader, "gpu-idle").find("num_workers"), std::string::npos);
  EXPECT_NE(advice(KnownPlace::kToDevice, "memcpy-sync").find("non_blocking=True"),
            std::string::npos);
  EXPECT_NE(advice(KnownPlace::kItem, "host-sync").find("every N steps"), std::string::npos);
  // A rule whose problem is another one keeps its own advice there.
  EXPECT_EQ(advice(KnownPlace::kToDevice, "device-copy"), "");
  EXPECT_EQ(advice(KnownPlace::kOptimizerStep, "kernel-outlier"), "");
}

TEST(PlaceAdvice, AStormOfTinyKernelsInsideTheOptimizerStepIsToldForeachOrFused) {
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Annotation("Optimizer.step#SGD.step", t0 + 1 * us, 950 * us);
    b.Op("aten::add_", t0 + 2 * us, 920 * us);
    for (int k = 0; k < 100; ++k)
      b.Launch("tiny_add", t0 + 3 * us + k * 9 * us, 8 * us, t0 + 3 * us + k * 9 * us + 8 * us,
               2 * us);
  }
  b.Frame("train.py(3): <module>", 0, 4000 * us);  // a framework program
  auto r = Analyze(b.Link());                      // kept: Rule points into it
  auto f = Rule(r, "launch-bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->advice.find("foreach=True"), std::string::npos) << f[0]->advice;
  EXPECT_EQ(f[0]->advice.find("Fuse the small ops"), std::string::npos) << f[0]->advice;
}

TEST(GpuIdle, EveryCauseIsOneFindingPricedWholeAndListedByItsCostliest) {
  // Seven CPU ops, each keeping the GPU idle 100 us per step, more causes than are listed (5): the
  // one finding prices all seven (an earlier attempt priced only the listed ones).
  Builder b;
  const int steps = 8;
  for (int s = 0; s < steps; ++s) {
    int64_t t0 = s * 1050 * us;
    b.Step(s, t0, 1050 * us);
    int64_t host = t0;
    for (int k = 0; k < 7; ++k) {
      b.Launch("k", host, 5 * us, host + 10 * us, 40 * us);  // ends at host + 50 us
      b.Op("aten::cpu_work_" + std::to_string(k), host + 10 * us, 140 * us);
      host += 150 * us;  // the next kernel starts 110 us after this one ended
    }
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "gpu-idle");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->evidence.size(), 5u);
  EXPECT_NE(f[0]->detail.find("7 causes"), std::string::npos) << f[0]->detail;
  const auto steady = static_cast<int64_t>(r.steady.steady_count());
  // Each step: 7 gaps of 110 us (the last one's next launch is the next step's; the window's
  // last gap may end with it), each all but the launch's latency saved.
  EXPECT_GE(f[0]->standalone_ns, (7 * steady - 1) * 90 * us) << f[0]->detail;
  EXPECT_LE(f[0]->standalone_ns, 7 * steady * 110 * us);
}

}  // namespace
}  // namespace place_advice_test
}  // namespace gpuscope::analysis
