// DisjointHostSpans, and the replay's host spans cut once where they overlap.

#include "analysis/replay/host_spans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "analysis/common/test_model_builder.h"
#include "analysis/replay/replay_graph.h"

namespace gpuscope::analysis {
namespace host_spans_test {  // this file's helpers, apart in a unity build
namespace {

using Span = WhatIf::HostScale;
using test_models::Builder;
using test_models::us;

bool Same(const std::vector<Span>& a, const std::vector<Span>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].track != b[i].track || a[i].start_ns != b[i].start_ns || a[i].end_ns != b[i].end_ns ||
        a[i].factor != b[i].factor || a[i].calls != b[i].calls)
      return false;
  }
  return true;
}

TEST(DisjointHostSpans, SpansApartComeBackAsTheyAre) {
  const std::vector<Span> apart{{1, 0, 10, 0.0, true}, {1, 10, 20, 0.5, false}, {1, 30, 30, 0.0}};
  EXPECT_TRUE(HostSpansApart(apart));
  EXPECT_TRUE(Same(DisjointHostSpans(apart), {{1, 0, 10, 0.0, true}, {1, 10, 20, 0.5, false}}));
  EXPECT_FALSE(HostSpansApart({{1, 10, 20, 0.0}, {1, 0, 5, 0.0}}));  // apart, not in order
}

TEST(DisjointHostSpans, TwiceNestedAndOverlappingAreCutOnce) {
  // One span twice: itself.
  EXPECT_TRUE(Same(DisjointHostSpans({{1, 0, 10, 0.0}, {1, 0, 10, 0.0}}), {{1, 0, 10, 0.0}}));
  // A span inside another of the same factor: the outer one.
  EXPECT_TRUE(Same(DisjointHostSpans({{1, 0, 100, 0.0}, {1, 20, 30, 0.0}}), {{1, 0, 100, 0.0}}));
  // Out of order and overlapping: their union, in order.
  EXPECT_TRUE(Same(DisjointHostSpans({{1, 50, 80, 0.0}, {1, 0, 60, 0.0}}), {{1, 0, 80, 0.0}}));
  // Other factors: each instant by the smallest; calls where any span scales them.
  EXPECT_TRUE(Same(DisjointHostSpans({{1, 0, 100, 0.5, false}, {1, 20, 40, 0.0, true}}),
                   {{1, 0, 20, 0.5, false}, {1, 20, 40, 0.0, true}, {1, 40, 100, 0.5, false}}));
}

// Random spans on a small grid against a reference made instant by instant: each instant
// under spans has the smallest factor of them and calls where any scales calls; none is under
// two pieces; neighbouring pieces differ (spans given apart come back as they are).
TEST(DisjointHostSpans, MatchesTheInstantByInstantReference) {
  std::mt19937 rng(7);
  const double factors[] = {0.0, 0.25, 0.5, 1.0};
  for (int round = 0; round < 500; ++round) {
    std::vector<Span> spans;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < n; ++k) {
      const int64_t a = rng() % 40, len = rng() % 15;
      spans.push_back({1, a, a + len, factors[rng() % 4], rng() % 2 == 0});
    }
    constexpr int kInstants = 60;
    std::vector<double> want_factor(kInstants, -1);
    std::vector<int> want_calls(kInstants, 0);
    for (const Span& h : spans) {
      for (int64_t x = h.start_ns; x < h.end_ns; ++x) {
        double& f = want_factor[static_cast<size_t>(x)];
        f = f < 0 ? h.factor : std::min(f, h.factor);
        want_calls[static_cast<size_t>(x)] |= h.calls;
      }
    }
    std::vector<double> got_factor(kInstants, -1);
    std::vector<int> got_calls(kInstants, 0);
    const std::vector<Span> pieces = DisjointHostSpans(spans);
    for (size_t k = 0; k < pieces.size(); ++k) {
      const Span& p = pieces[k];
      ASSERT_LT(p.start_ns, p.end_ns);
      if (k > 0) {
        ASSERT_LE(pieces[k - 1].end_ns, p.start_ns);
        ASSERT_FALSE(!HostSpansApart(spans) && pieces[k - 1].end_ns == p.start_ns &&
                     pieces[k - 1].factor == p.factor && pieces[k - 1].calls == p.calls);
      }
      for (int64_t x = p.start_ns; x < p.end_ns; ++x) {
        got_factor[static_cast<size_t>(x)] = p.factor;
        got_calls[static_cast<size_t>(x)] = p.calls;
      }
    }
    ASSERT_EQ(got_factor, want_factor) << "round " << round;
    ASSERT_EQ(got_calls, want_calls) << "round " << round;
  }
}

// A host-bound loop: 10 launches 100 us apart, each kernel 10 us. Removing the host time of
// [0, 250 us) saves it once, however the spans that cover it are listed: the gap from 205 us to
// 300 us loses its first 45 us, never more (cut twice, it would lose 90).
TEST(ReplayGraph, HostTimeUnderTwoSpansIsRemovedOnce) {
  Builder r;
  for (int s = 0; s < 10; ++s) r.Launch("k", s * 100 * us, 5 * us, s * 100 * us + 10 * us, 10 * us);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 1000 * us);
  const model::TrackId host = t.api.track[0];
  auto saves = [&](std::vector<Span> spans) {
    WhatIf fix;
    fix.host_scale = std::move(spans);
    return g.Replay(nullptr).window_ns - g.Replay(&fix).window_ns;
  };
  const int64_t once = saves({{host, 0, 250 * us, 0.0}});
  EXPECT_GE(once, 2 * 95 * us + 45 * us);
  EXPECT_EQ(saves({{host, 0, 250 * us, 0.0}, {host, 0, 250 * us, 0.0}}), once);
  EXPECT_EQ(saves({{host, 0, 250 * us, 0.0}, {host, 220 * us, 240 * us, 0.0}}), once);
  EXPECT_EQ(saves({{host, 210 * us, 250 * us, 0.0}, {host, 0, 230 * us, 0.0}}), once);
  // Half the host time removed, and all of it where a second span says so: between the two.
  const int64_t half = saves({{host, 0, 250 * us, 0.5}});
  const int64_t mixed = saves({{host, 0, 250 * us, 0.5}, {host, 220 * us, 250 * us, 0.0}});
  EXPECT_LT(half, mixed);
  EXPECT_LT(mixed, once);
}

// A fix's spans ordered by start once (analyze's pricing, before its replays): stable, and the
// replay saves what it saved with them in any order - a cause's gaps after another's (gpu-idle),
// spans of two threads interleaved, nested and overlapping ones.
TEST(WhatIf, HostSpansSortedOnceSaveWhatTheySavedInAnyOrder) {
  WhatIf sorted;
  sorted.host_scale = {{2, 50, 60, 0.0}, {1, 10, 20, 0.5}, {1, 10, 15, 0.0}, {2, 5, 8, 0.0}};
  sorted.SortHostSpans();
  std::vector<int64_t> starts, ends;
  for (const Span& h : sorted.host_scale) starts.push_back(h.start_ns), ends.push_back(h.end_ns);
  EXPECT_EQ(starts, (std::vector<int64_t>{5, 10, 10, 50}));
  EXPECT_EQ(ends, (std::vector<int64_t>{8, 20, 15, 60}));  // equal starts keep their order

  Builder r;
  for (int s = 0; s < 10; ++s) r.Launch("k", s * 100 * us, 5 * us, s * 100 * us + 10 * us, 10 * us);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 1000 * us);
  const model::TrackId host = t.api.track[0];
  std::mt19937 rng(11);
  const double factors[] = {0.0, 0.3, 0.5};
  for (int round = 0; round < 50; ++round) {
    WhatIf fix;
    for (int k = 0; k < 6; ++k) {
      const int64_t a = static_cast<int64_t>(rng() % 900) * us;
      const int64_t len = static_cast<int64_t>(1 + rng() % 150) * us;
      fix.host_scale.push_back({host, a, a + len, factors[rng() % 3], rng() % 2 == 0});
    }
    const int64_t shuffled = g.Replay(&fix).window_ns;
    fix.SortHostSpans();
    EXPECT_EQ(g.Replay(&fix).window_ns, shuffled) << "round " << round;
  }
}

}  // namespace
}  // namespace host_spans_test
}  // namespace gpuscope::analysis
