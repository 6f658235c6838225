// `stats --by memory` on a hand-built trace: allocations and frees by the op and Python line
// they happen in, what stays allocated at the end, the window, and events without addresses.

#include <gtest/gtest.h>

#include "analysis/attribution/attribution.h"
#include "analysis/common/test_model_builder.h"
#include "analysis/stats/stats.h"

namespace gpuscope::analysis {
namespace memory_stats_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

constexpr int64_t MB = 1 << 20;

// Three steps, each: aten::empty allocates 1 MB it never frees, aten::mul allocates 4 MB that
// aten::add frees; the first step also allocates 8 MB outside any op.
model::Trace& Steps(Builder& b, bool addresses = true) {
  auto event = [&](int64_t ts, int64_t bytes, uint64_t addr) {
    b.raw().memory.Append({ts, bytes, -1, -1, addresses ? addr : 0, b.cpu_track(), 0});
  };
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 1000 * us;
    test_models::AllocatingStep(b, s, t0, event);
    b.Op("aten::add", t0 + 30 * us, 5 * us);
    event(t0 + 32 * us, -4 * MB, 77);
  }
  event(950 * us, 8 * MB, 5);
  return b.Link();
}

const OpMemoryStat* Row(const std::vector<OpMemoryStat>& rows, const std::string& op) {
  for (const auto& r : rows)
    if (r.op == op) return &r;
  return nullptr;
}

TEST(MemoryByOp, AllocationsAndFreesByPlace) {
  Builder b;
  model::Trace& t = Steps(b);
  Attributor at(t);
  auto rows = MemoryByOp(t, {}, at);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].op, "aten::mul");  // 12 MB allocated: the largest first
  EXPECT_EQ(rows[0].python, "model.py(5): forward");
  EXPECT_EQ(rows[0].allocations, 3u);
  EXPECT_EQ(rows[0].allocated_bytes, 12 * MB);
  EXPECT_EQ(rows[0].largest_bytes, 4 * MB);
  EXPECT_EQ(rows[0].frees, 0u);
  EXPECT_EQ(rows[0].alive_bytes, 0);  // aten::add freed every block
  EXPECT_EQ(rows[1].op, "");          // outside any op, in the frame
  EXPECT_EQ(rows[1].allocated_bytes, 8 * MB);
  EXPECT_EQ(rows[1].alive_bytes, 8 * MB);
  const OpMemoryStat* empty = Row(rows, "aten::empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->allocated_bytes, 3 * MB);
  EXPECT_EQ(empty->alive_bytes, 3 * MB);  // never freed
  const OpMemoryStat* add = Row(rows, "aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->allocations, 0u);
  EXPECT_EQ(add->frees, 3u);
  EXPECT_EQ(add->freed_bytes, 12 * MB);
  EXPECT_EQ(add->self_bytes(), -12 * MB);
}

TEST(MemoryByOp, AWindowCountsItsEventsAndLaterFrees) {
  Builder b;
  model::Trace& t = Steps(b);
  Attributor at(t);
  StatsOptions window;
  window.window_start = 0, window.window_end = 25 * us;  // the first empty and mul only
  auto rows = MemoryByOp(t, window, at);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op, "aten::mul");
  EXPECT_EQ(rows[0].allocated_bytes, 4 * MB);
  EXPECT_EQ(rows[0].alive_bytes, 0);  // freed after the window: not alive at the end
  EXPECT_EQ(rows[1].op, "aten::empty");
  EXPECT_EQ(rows[1].alive_bytes, MB);
}

TEST(MemoryByOp, WithoutAddressesWhatStaysIsUnknown) {
  Builder b;
  model::Trace& t = Steps(b, false);
  Attributor at(t);
  auto rows = MemoryByOp(t, {}, at);
  ASSERT_FALSE(rows.empty());
  for (const auto& r : rows) EXPECT_EQ(r.alive_bytes, -1) << r.op;
}

TEST(MemoryByOp, NoEventsNoRows) {
  Builder b;
  b.Op("aten::mul", 0, 5 * us);
  model::Trace& t = b.Link();
  Attributor at(t);
  EXPECT_TRUE(MemoryByOp(t, {}, at).empty());
}

}  // namespace
}  // namespace memory_stats_test
}  // namespace gpuscope::analysis
