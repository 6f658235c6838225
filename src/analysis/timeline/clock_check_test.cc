// Clock and queue checks on hand-built models: kernels before their launch (offset, corrected),
// long waits on an idle GPU (unexplained, not corrected), a deep queue behind a busy GPU (fine).

#include "analysis/timeline/clock_check.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"

namespace gpuscope::analysis {
namespace clock_check_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

TEST(ClockCheck, OpsBeforeTheirLaunchAreAClockOffsetAndAreCorrected) {
  // The GPU clock runs 300 us behind: each kernel appears 290 us before its launch.
  auto build = [](Builder& b) {
    for (int i = 0; i < 5; ++i) {
      int64_t t = 1000 * us + i * 100 * us;
      b.Launch("k", t, 5 * us, t + 10 * us - 300 * us, 20 * us);
    }
  };
  Builder b, aligned;
  build(b), build(aligned);
  model::Trace& t = b.Link();
  ClockCheck c = CheckClocks(t);
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].verdict, ClockVerdict::kClockOffset);
  EXPECT_EQ(c.devices[0].before_launch, 5u);
  EXPECT_EQ(c.devices[0].max_before_ns, 290 * us);
  // --align-clocks: the linker shifts the GPU by the largest lead, as the check says.
  model::Trace& a = aligned.Link({.align_clocks = true});
  ASSERT_EQ(a.meta.clock_shifts.size(), 1u);
  EXPECT_EQ(a.meta.clock_shifts[0].shift_ns, c.devices[0].max_before_ns);
  ClockCheck after = CheckClocks(a);
  EXPECT_EQ(after.devices[0].before_launch, 0u);
  EXPECT_EQ(after.devices[0].verdict, ClockVerdict::kOk);
  EXPECT_EQ(after.devices[0].p10_ns, 0);  // the worst op now starts exactly at its launch
}

TEST(ClockCheck, LongWaitOnAnIdleGpuIsUnexplainedAndNotCorrected) {
  Builder b;
  b.Launch("k", 0, 5 * us, 8000 * us, 20 * us);        // waits 8 ms on an idle GPU
  b.Launch("k", 10 * us, 5 * us, 8030 * us, 20 * us);  // waits too (nothing ran before it)
  model::Trace& t = b.Link({.align_clocks = true});
  ClockCheck c = CheckClocks(t);
  EXPECT_EQ(c.devices[0].verdict, ClockVerdict::kUnexplainedDelay);
  EXPECT_EQ(c.devices[0].idle_delayed, 2u);
  EXPECT_EQ(c.devices[0].idle_wait_min_ns, 7995 * us);  // idle time only: 8 ms less the call
  EXPECT_NE(c.devices[0].explanation.find("clocks disagree"), std::string::npos);
  EXPECT_NE(c.devices[0].explanation.find("does not show"), std::string::npos);
  EXPECT_TRUE(t.meta.clock_shifts.empty());  // --align-clocks shifts nothing here
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

TEST(ClockCheck, SlowLaunchesOntoAnIdleGpuAreNotCalledPrompt) {
  // Issue 51: "ok: ops start promptly" under a median launch-to-start of 457 us.
  Builder b;
  for (int i = 0; i < 5; ++i)
    b.Launch("k", i * 2000 * us, 5 * us, i * 2000 * us + 457 * us, 20 * us);
  ClockCheck c = CheckClocks(b.Link());
  const DeviceClockCheck& d = c.devices[0];
  EXPECT_EQ(d.verdict, ClockVerdict::kOk);  // under 1 ms: not a clock problem
  EXPECT_EQ(d.idle_launch_median_ns, 457 * us);
  EXPECT_EQ(d.explanation.find("promptly"), std::string::npos) << d.explanation;
  EXPECT_NE(d.explanation.find("median 457.000 us after their launch call began"),
            std::string::npos)
      << d.explanation;
  Builder fast;
  for (int i = 0; i < 5; ++i)
    fast.Launch("k", i * 2000 * us, 5 * us, i * 2000 * us + 12 * us, 20 * us);
  EXPECT_EQ(CheckClocks(fast.Link()).devices[0].explanation,
            "ops start promptly after their launch");
}

TEST(ClockCheck, WorkWithoutALaunchCallKeepsTheGpuBusy) {
  // Issue 51: a GPU 99% busy with copies the trace does not link to a call was "idle", and the
  // kernels queued behind them "waited on the idle GPU ... clocks disagree".
  Builder b;
  b.Kernel("copy_engine_work", 0, 9000 * us);  // no launch call
  b.Launch("k", 100 * us, 5 * us, 9000 * us, 20 * us);
  b.Launch("k", 200 * us, 5 * us, 9020 * us, 20 * us);
  ClockCheck c = CheckClocks(b.Link());
  const DeviceClockCheck& d = c.devices[0];
  EXPECT_EQ(d.verdict, ClockVerdict::kOk) << d.explanation;
  EXPECT_EQ(d.queued, 2u);
  EXPECT_EQ(d.idle_delayed, 0u);
  EXPECT_LT(d.idle_ns, 10 * us);
}

}  // namespace
}  // namespace clock_check_test
}  // namespace gpuscope::analysis
