// Clock and queue checks on hand-built models: kernels before their launch (offset, corrected),
// long waits on an idle GPU (unexplained, not corrected), a deep queue behind a busy GPU (fine).

#include "analysis/timeline/clock_check.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"

namespace gpuscope::analysis {
namespace {

using test_models::Builder;
using test_models::us;

TEST(ClockCheck, OpsBeforeTheirLaunchAreAClockOffsetAndAreCorrected) {
  Builder b;
  // The GPU clock runs 300 us behind: each kernel appears 290 us before its launch.
  for (int i = 0; i < 5; ++i) {
    int64_t t = 1000 * us + i * 100 * us;
    b.Launch("k", t, 5 * us, t + 10 * us - 300 * us, 20 * us);
  }
  model::Trace& t = b.Link();
  ClockCheck c = CheckClocks(t);
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].verdict, ClockVerdict::kClockOffset);
  EXPECT_EQ(c.devices[0].before_launch, 5u);
  EXPECT_EQ(c.devices[0].max_before_ns, 290 * us);
  ASSERT_EQ(c.corrections.size(), 1u);
  EXPECT_EQ(AlignClocks(t, c), 5u);
  ClockCheck after = CheckClocks(t);
  EXPECT_EQ(after.devices[0].before_launch, 0u);
  EXPECT_EQ(after.devices[0].verdict, ClockVerdict::kOk);
  EXPECT_EQ(after.devices[0].p10_ns, 0);  // the worst op now starts exactly at its launch
}

TEST(ClockCheck, LongWaitOnAnIdleGpuIsUnexplainedAndNotCorrected) {
  Builder b;
  b.Launch("k", 0, 5 * us, 8000 * us, 20 * us);        // waits 8 ms on an idle GPU
  b.Launch("k", 10 * us, 5 * us, 8030 * us, 20 * us);  // waits too (nothing ran before it)
  model::Trace& t = b.Link();
  ClockCheck c = CheckClocks(t);
  EXPECT_EQ(c.devices[0].verdict, ClockVerdict::kUnexplainedDelay);
  EXPECT_EQ(c.devices[0].idle_delayed, 2u);
  EXPECT_EQ(c.devices[0].idle_wait_min_ns, 7995 * us);  // idle time only: 8 ms less the call
  EXPECT_NE(c.devices[0].explanation.find("clocks disagree"), std::string::npos);
  EXPECT_NE(c.devices[0].explanation.find("does not show"), std::string::npos);
  EXPECT_TRUE(c.corrections.empty());
}

TEST(ClockCheck, ADeepQueueBehindABusyGpuIsTheHostRunningAhead) {
  Builder b;
  b.Launch("long", 0, 5 * us, 10 * us, 10000 * us);
  for (int i = 0; i < 10; ++i)  // queued while "long" runs: they wait up to ~10 ms, healthy
    b.Launch("k", 20 * us + i * 10 * us, 5 * us, 10010 * us + i * 30 * us, 20 * us);
  ClockCheck c = CheckClocks(b.Link());
  EXPECT_EQ(c.devices[0].verdict, ClockVerdict::kOk);
  EXPECT_EQ(c.devices[0].queued, 10u);
  EXPECT_FALSE(c.problem());
  EXPECT_NE(c.devices[0].explanation.find("host runs ahead"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope::analysis
