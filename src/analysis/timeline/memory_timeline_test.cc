// The memory timeline on a hand-built trace: the peak, who holds it (blocks alive then by their
// op and Python line, and what was allocated before the trace), the steps' ends and a leak.

#include "analysis/timeline/memory_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/common/test_model_builder.h"

namespace gpuscope::analysis {
namespace memory_timeline_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

constexpr int64_t MB = 1 << 20;

// Five steps: each allocates 1 MB in aten::empty that it never frees (a leak) and 4 MB in
// aten::mul that it frees before its end; 100 MB were allocated before the trace.
model::Trace& Leaky(Builder& b) {
  int64_t allocated = 100 * MB;
  auto event = [&](int64_t ts, int64_t bytes, uint64_t addr) {
    allocated += bytes;
    b.raw().memory.Append({ts, bytes, allocated, 256 * MB, addr, b.cpu_track(), 0});
  };
  for (int s = 0; s < 5; ++s) {
    int64_t t0 = s * 1000 * us;
    test_models::AllocatingStep(b, s, t0, event);
    event(t0 + 500 * us, -4 * MB, 77);
  }
  return b.Link();
}

TEST(MemoryTimeline, PeakHoldersStepsAndALeak) {
  Builder b;
  model::Trace& t = Leaky(b);
  MemoryTimeline m = BuildMemoryTimeline(t, FindSteps(t));
  ASSERT_EQ(m.devices.size(), 1u);
  const DeviceMemory& d = m.devices[0];
  EXPECT_TRUE(d.totals_recorded);
  EXPECT_EQ(d.events, 15u);
  EXPECT_EQ(d.allocations, 10u);
  EXPECT_EQ(d.frees, 5u);
  // The last step's mul: 100 + 5 leaked + 4.
  EXPECT_EQ(d.peak_allocated_bytes, 109 * MB);
  EXPECT_EQ(d.peak_at_ns, 4022 * us);
  EXPECT_EQ(d.peak_reserved_bytes, 256 * MB);
  EXPECT_EQ(d.final_allocated_bytes, 105 * MB);
  ASSERT_EQ(d.holders.size(), 3u);
  EXPECT_EQ(d.holders[0].op, "(allocated before the trace)");
  EXPECT_EQ(d.holders[0].bytes, 100 * MB);
  EXPECT_EQ(d.holders[1].op, "aten::empty");
  EXPECT_EQ(d.holders[1].python, "model.py(5): forward");
  EXPECT_EQ(d.holders[1].bytes, 5 * MB);
  EXPECT_EQ(d.holders[1].blocks, 5u);
  EXPECT_EQ(d.holders[2].op, "aten::mul");
  EXPECT_EQ(d.holders[2].bytes, 4 * MB);
  ASSERT_FALSE(d.steps.empty());
  EXPECT_EQ(d.steps.back().allocated_bytes, 105 * MB);
  EXPECT_EQ(d.steps.back().allocations, 2u);
  EXPECT_EQ(d.steps.back().allocated_in_step_bytes, 5 * MB);
  EXPECT_EQ(d.growth_per_step_bytes, MB);
  // What the steady steps kept: aten::empty's blocks, one a step (mul's are freed).
  ASSERT_EQ(d.kept.size(), 1u);
  EXPECT_EQ(d.kept[0].op, "aten::empty");
  EXPECT_EQ(d.kept[0].bytes, static_cast<int64_t>(d.steps.size()) * MB);
  // The chart keeps every event here (15 < the bucket count) and the peak.
  ASSERT_EQ(d.series.size(), 15u);
  EXPECT_EQ(std::max_element(d.series.begin(), d.series.end(),
                             [](auto& x, auto& y) { return x.allocated_bytes < y.allocated_bytes; })
                ->allocated_bytes,
            109 * MB);
}

TEST(MemoryTimeline, NoGrowthWhenStepsGiveBackWhatTheyTake) {
  Builder b;
  int64_t allocated = 0;
  for (int s = 0; s < 5; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    for (int64_t bytes : {8 * MB, -8 * MB}) {
      allocated += bytes;
      b.raw().memory.Append(
          {t0 + (bytes > 0 ? 10 : 600) * us, bytes, allocated, -1, 55, b.cpu_track(), 0});
    }
  }
  model::Trace& t = b.Link();
  MemoryTimeline m = BuildMemoryTimeline(t, FindSteps(t), 1);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].peak_allocated_bytes, 8 * MB);
  EXPECT_EQ(m.devices[0].peak_reserved_bytes, -1);
  EXPECT_EQ(m.devices[0].growth_per_step_bytes, 0);
  EXPECT_EQ(m.devices[0].holders.size(), 1u);
}

}  // namespace
}  // namespace memory_timeline_test
}  // namespace gpuscope::analysis
