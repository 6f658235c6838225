// whatif scenarios on hand-built models: --without-tracer takes a ROCm tracer's spacing of a
// graph's kernels out (issue 51).

#include "analysis/replay/scenario.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/steps/steady_state.h"

namespace gpuscope::analysis {
namespace scenario_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

// Three steps, each one hipGraphLaunch replaying 200 kernels of 10 us, which the tracer wrote
// `spacing` apart, and a synchronize until they are done.
model::Trace& SpacedGraphs(Builder& b, int64_t spacing) {
  int64_t t0 = 0;
  for (int s = 0; s < 3; ++s) {
    const uint64_t corr = 1000 + static_cast<uint64_t>(s);
    b.Api("hipGraphLaunch", t0, 20 * us, corr);
    int64_t g = t0 + 30 * us;
    for (int k = 0; k < 200; ++k, g += 10 * us + spacing)
      b.Kernel("graph_k" + std::to_string(k % 7), g, 10 * us, corr);
    b.Api("hipStreamSynchronize", t0 + 25 * us, g - t0 - 20 * us, 0);
    b.Step(s, t0, g + 10 * us - t0);
    t0 = g + 10 * us;
  }
  model::Trace& t = b.Link();
  t.meta.format = "rocprofv3-csv";
  return t;
}

TEST(Scenario, WithoutTheTracerAGraphsKernelsRunAtItsOwnGap) {
  Builder b;
  const model::Trace& t = SpacedGraphs(b, 5 * us);
  SteadyState steady = ChooseWindow(t, FindSteps(t));
  Scenario s;
  s.without_tracer = true;
  ScenarioResult r = RunScenario(t, steady, s);
  // 3 x 199 gaps of 5 us become 1 us.
  EXPECT_NEAR(static_cast<double>(r.saving_ns()), 3 * 199 * 4.0 * us, 3 * 20.0 * us);
  EXPECT_EQ(s.Text(), "--without-tracer");
  // Gaps the GPU leaves itself (1 us) are no tracer's: nothing to take out.
  Builder own;
  const model::Trace& plain = SpacedGraphs(own, 1 * us);
  EXPECT_EQ(RunScenario(plain, ChooseWindow(plain, FindSteps(plain)), s).saving_ns(), 0);
}

}  // namespace
}  // namespace scenario_test
}  // namespace gpuscope::analysis
