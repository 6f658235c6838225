// LargestEventGap: the tables merged by start in one pass give what sorting every event gave,
// whether or not the tables are in start order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace gpuscope::model {
namespace event_gap_test {  // this file's helpers, apart in a unity build
namespace {

// The reference: every span sorted, the union walked once.
EventGap Reference(const Trace& t) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    spans.emplace_back(t.kernels.start_ns[i], t.kernels.end_ns(i));
  for (size_t i = 0; i < t.memops.size(); ++i)
    spans.emplace_back(t.memops.start_ns[i], t.memops.end_ns(i));
  for (size_t i = 0; i < t.api.size(); ++i) spans.emplace_back(t.api.start_ns[i], t.api.end_ns(i));
  EventGap g;
  if (spans.empty()) return g;
  std::sort(spans.begin(), spans.end());
  constexpr int64_t kMinute = 60'000'000'000;
  int64_t reach = spans[0].second, cluster = spans[0].first;
  g.first_ns = spans[0].first;
  for (size_t i = 1; i < spans.size(); ++i) {
    int64_t gap = spans[i].first - reach;
    if (gap > g.gap()) g.from_ns = reach, g.to_ns = spans[i].first;
    if (gap >= kMinute) g.active_ns += reach - cluster, cluster = spans[i].first;
    reach = std::max(reach, spans[i].second);
  }
  g.active_ns += reach - cluster;
  g.last_ns = reach;
  return g;
}

TEST(LargestEventGap, MergedByStartAsSortedWhetherOrNotTheTablesAreInOrder) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    Trace t;
    const bool in_order = round % 2 == 0;
    const int64_t scale = round % 3 == 0 ? 120'000'000'000 : 1000;  // gaps past a minute, or not
    auto times = [&](int n) {
      std::vector<std::pair<int64_t, int64_t>> v;
      for (int k = 0; k < n; ++k)
        v.emplace_back(static_cast<int64_t>(rng() % 50) * scale,
                       static_cast<int64_t>(rng() % 4) * scale / 2);
      if (in_order) std::sort(v.begin(), v.end());
      return v;
    };
    for (auto [s, d] : times(static_cast<int>(rng() % 6))) {
      KernelRow r;
      r.start_ns = s, r.dur_ns = d;
      t.kernels.Append(r);
    }
    for (auto [s, d] : times(static_cast<int>(rng() % 4))) {
      MemopRow r;
      r.start_ns = s, r.dur_ns = d;
      t.memops.Append(r);
    }
    for (auto [s, d] : times(static_cast<int>(rng() % 6))) {
      ApiRow r;
      r.start_ns = s, r.dur_ns = d;
      t.api.Append(r);
    }
    const EventGap got = LargestEventGap(t), want = Reference(t);
    EXPECT_EQ(got.first_ns, want.first_ns) << round;
    EXPECT_EQ(got.last_ns, want.last_ns) << round;
    EXPECT_EQ(got.from_ns, want.from_ns) << round;
    EXPECT_EQ(got.to_ns, want.to_ns) << round;
    EXPECT_EQ(got.active_ns, want.active_ns) << round;
  }
}

}  // namespace
}  // namespace event_gap_test
}  // namespace gpuscope::model
