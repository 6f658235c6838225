// The replay of the dependency graph on hand-built models: the unchanged graph reproduces the
// observed window; a dropped wait saves the GPU idle it caused and nothing when the GPU was
// busy anyway; a double-buffered event sync waits for nothing; the critical path adds up.

#include "analysis/replay/replay_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "model/linker.h"

namespace gpuscope::analysis {
namespace {

using test_models::Builder;
using test_models::us;

// Per step: launch a 100 us kernel, then the host waits for it (a synchronize), then 50 us of
// host work before the next step: the GPU idles 55 us per step, and the host is idle while the
// kernel runs.
void SyncLoop(Builder& r, int steps) {
  for (int s = 0; s < steps; ++s) {
    int64_t t0 = s * 165 * us;
    r.Launch("k", t0, 5 * us, t0 + 10 * us, 100 * us);         // ends t0 + 110
    r.Api("cudaStreamSynchronize", t0 + 5 * us, 110 * us, 0);  // returns at t0 + 115
  }
}

// A 5 us cudaLaunchKernel at `at` on `cpu` and its kernel "k" on `stream`, [ks, ks + kd).
void LaunchOn(model::Trace& t, model::TrackId cpu, model::TrackId stream, uint64_t corr, int64_t at,
              int64_t ks, int64_t kd) {
  model::ApiRow a;
  a.start_ns = at, a.dur_ns = 5 * us, a.name = t.strings.Intern("cudaLaunchKernel"), a.track = cpu,
  a.correlation = corr;
  t.api.Append(a);
  model::KernelRow k;
  k.start_ns = ks, k.dur_ns = kd, k.name = t.strings.Intern("k"), k.track = stream,
  k.correlation = corr, k.device = 0;
  t.kernels.Append(k);
}

// The replay reproduces the observed window, and kernel row 0 (300 us) run 100 us shorter
// shortens it by 100 us: what follows that kernel follows it.
void ExpectFirstKernel100UsShorterSaves100Us(const ReplayGraph& g) {
  int64_t base = g.Replay(nullptr).window_ns;
  EXPECT_EQ(base, g.observed_window_ns());
  WhatIf faster;
  faster.kernel_dur.emplace_back(0, 200 * us);
  EXPECT_EQ(g.Replay(&faster).window_ns, base - 100 * us);
}

TEST(ReplayGraph, UnchangedReplayReproducesTheWindow) {
  Builder r;
  SyncLoop(r, 10);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 10 * 165 * us);
  EXPECT_EQ(g.inferred_waits(), 10u);
  ReplayResult base = g.Replay(nullptr, true);
  EXPECT_EQ(base.window_ns, g.observed_window_ns());
  int64_t path = 0;
  for (const auto& p : base.path) path += p.ns;
  EXPECT_EQ(path, base.window_ns);  // the critical path covers the whole window
}

TEST(ReplayGraph, CriticalSegmentsTileTheWindowInOrder) {
  // The stretches of the critical path follow each other without gaps or overlaps from the
  // window's start to its end, and add up by category to the path's composition.
  Builder r;
  SyncLoop(r, 10);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 10 * 165 * us);
  ReplayResult base = g.Replay(nullptr, true);
  std::vector<PathSegment> segs = g.CriticalSegments();
  ASSERT_FALSE(segs.empty());
  EXPECT_EQ(segs.front().start_ns, 0);
  EXPECT_EQ(segs.back().end_ns, base.window_ns);
  std::map<std::string, int64_t> by_category;
  for (size_t i = 0; i < segs.size(); ++i) {
    EXPECT_LT(segs[i].start_ns, segs[i].end_ns);
    if (i > 0) {
      EXPECT_EQ(segs[i].start_ns, segs[i - 1].end_ns) << i;
    }
    by_category[std::string(segs[i].category)] += segs[i].end_ns - segs[i].start_ns;
  }
  for (const auto& share : base.path) EXPECT_EQ(by_category[share.category], share.ns);
  // The kernels' stretches are on the GPU stream's row, named after the kernel.
  auto kernel = std::find_if(segs.begin(), segs.end(),
                             [](const PathSegment& s) { return s.category == "GPU kernels"; });
  ASSERT_NE(kernel, segs.end());
  EXPECT_EQ(kernel->name, "k");
  EXPECT_EQ(kernel->track, t.kernels.track[0]);
}

TEST(ReplayGraph, DroppingAWaitSavesTheIdleItCaused) {
  Builder r;
  SyncLoop(r, 10);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 10 * 165 * us);
  WhatIf fix;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) == "cudaStreamSynchronize") fix.unblock_api.push_back(i);
  }
  // Without the waits, the host runs ahead: each step is 5 us launch + 5 us sync overhead +
  // 50 us of host work = 60 us, while the GPU needs 100 us per kernel: GPU-bound, so the run
  // ends when the last kernel does: first kernel at 10 us, then 10 kernels back to back.
  ReplayResult fixed = g.Replay(&fix);
  EXPECT_EQ(fixed.window_ns, 10 * us + 10 * 100 * us);
}

// The sync loop of 10 steps and its graph, given steps of `len` from each 165 us period's start.
struct SteppedLoop {
  Builder r;
  model::Trace& t;
  ReplayGraph g;
  explicit SteppedLoop(int64_t len) : t((SyncLoop(r, 10), r.Link())), g(t, 0, 10 * 165 * us) {
    std::vector<std::pair<int64_t, int64_t>> steps;
    for (int s = 0; s < 10; ++s) steps.emplace_back(s * 165 * us, s * 165 * us + len);
    g.SetSteps(steps);
  }
};

TEST(ReplayGraph, AStepIsDoneWhenItsHostAndGpuWorkAre) {
  // The sync loop's steps (each its 165 us period): as observed each step takes its period;
  // with the waits dropped the host races ahead and a step is done when its kernel is (the
  // GPU's 100 us per step); one kernel 60 us shorter shortens its own step only.
  SteppedLoop loop(165 * us);
  const model::Trace& t = loop.t;
  const ReplayGraph& g = loop.g;
  auto took = [](const ReplayResult& x, size_t k) {
    return x.steps_ns[2 * k + 1] - x.steps_ns[2 * k];
  };
  const ReplayResult base = g.Replay(nullptr);
  ASSERT_EQ(base.steps_ns.size(), 20u);
  for (size_t k = 0; k < 10; ++k) {
    EXPECT_EQ(base.steps_ns[2 * k], static_cast<int64_t>(k) * 165 * us) << k;
    EXPECT_EQ(took(base, k), k < 9 ? 165 * us : base.window_ns - 9 * 165 * us) << k;
  }
  WhatIf unblock, shorter;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) == "cudaStreamSynchronize") unblock.unblock_api.push_back(i);
  }
  shorter.kernel_dur.emplace_back(3, 40 * us);
  const ReplayResult raced = g.Replay(&unblock);
  ASSERT_EQ(raced.steps_ns.size(), 20u);
  for (size_t k = 0; k < 10; ++k)  // step k done when kernel k ends: 10 us + (k + 1) x 100 us
    EXPECT_EQ(raced.steps_ns[2 * k + 1], 10 * us + static_cast<int64_t>(k + 1) * 100 * us) << k;
  EXPECT_EQ(raced.steps_ns[19], raced.window_ns);
  const ReplayResult one = g.Replay(&shorter);
  ASSERT_EQ(one.steps_ns.size(), 20u);
  for (size_t k = 0; k < 10; ++k)
    EXPECT_EQ(took(one, k), k == 3 ? took(base, k) - 60 * us : took(base, k)) << k;
  // Side by side, the same steps; none for a null fix.
  std::vector<std::vector<int64_t>> replayed;
  g.ReplayWindows({&unblock, nullptr, &shorter}, 2, &replayed);
  ASSERT_EQ(replayed.size(), 3u);
  EXPECT_EQ(replayed[0], raced.steps_ns);
  EXPECT_TRUE(replayed[1].empty());
  EXPECT_EQ(replayed[2], one.steps_ns);
}

TEST(ReplayGraph, TimeBetweenStepsIsNoStepsTime) {
  // Steps of 115 us (the kernel and its sync) with 50 us of host work between them that no
  // step holds (a server waiting for requests): each step takes its 115 us, and making a kernel
  // 60 us shorter takes 60 us from its own step only.
  SteppedLoop loop(115 * us);
  const ReplayGraph& g = loop.g;
  WhatIf shorter;
  shorter.kernel_dur.emplace_back(3, 40 * us);
  const ReplayResult base = g.Replay(nullptr), one = g.Replay(&shorter);
  for (size_t k = 0; k < 10; ++k) {
    EXPECT_EQ(base.steps_ns[2 * k + 1] - base.steps_ns[2 * k], 115 * us) << k;
    EXPECT_EQ(one.steps_ns[2 * k + 1] - one.steps_ns[2 * k], k == 3 ? 55 * us : 115 * us) << k;
  }
}

TEST(ReplayGraph, NoFixSavesMoreThanItsEditsRemove) {
  // The sync loop: each sync waits 105 us beyond its 5 us of its own (the kernel's 100 us and
  // the launch latency); dropping all 10 waits removes 10 x 105 us and saves less (the GPU is
  // the path then); one kernel 60 us shorter removes 60 us and saves them all.
  Builder r;
  SyncLoop(r, 10);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 10 * 165 * us);
  WhatIf unblock, shorter, none;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) == "cudaStreamSynchronize") unblock.unblock_api.push_back(i);
  }
  shorter.kernel_dur.emplace_back(3, 40 * us);
  std::vector<int64_t> removes = g.EditsRemoveNs({&unblock, &shorter, &none, nullptr});
  ASSERT_EQ(removes.size(), 4u);
  int64_t base = g.Replay(nullptr).window_ns;
  EXPECT_EQ(removes[0], 10 * 105 * us);
  EXPECT_LE(base - g.Replay(&unblock).window_ns, removes[0]);
  EXPECT_EQ(removes[1], 60 * us);
  EXPECT_EQ(base - g.Replay(&shorter).window_ns, 60 * us);
  EXPECT_EQ(removes[2], 0);
  EXPECT_EQ(removes[3], 0);
  // Shared among threads (each on its own copy of the parameters), the same, call after call;
  // and the unchanged replay is left as it was.
  for (int threads : {2, 3, 8, 2}) {
    EXPECT_EQ(g.EditsRemoveNs({&shorter, &unblock, nullptr, &none}, threads),
              (std::vector<int64_t>{removes[1], removes[0], 0, 0}))
        << threads;
    EXPECT_EQ(g.Replay(nullptr).window_ns, base) << threads;
  }
}

// Fixes replayed side by side (each worker on its own parameters, kept from call to call) give
// what one replay after another gives, call after call, and leave the unchanged replay unchanged.
TEST(ReplayGraph, ReplaysSideBySideEqualOneByOne) {
  Builder r;
  SyncLoop(r, 10);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 10 * 165 * us);
  std::vector<WhatIf> fixes(5);
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) == "cudaStreamSynchronize") fixes[0].unblock_api.push_back(i);
  }
  for (size_t k = 1; k < fixes.size(); ++k) fixes[k].kernel_dur.emplace_back(k, 10 * us);
  fixes[4].unblock_api = fixes[0].unblock_api;
  std::vector<const WhatIf*> batch = {&fixes[0], nullptr,   &fixes[1],
                                      &fixes[2], &fixes[3], &fixes[4]};
  const int64_t base = g.Replay(nullptr).window_ns;
  for (int threads : {1, 2, 3, 8}) {
    std::vector<int64_t> windows = g.ReplayWindows(batch, threads);
    ASSERT_EQ(windows.size(), batch.size());
    EXPECT_EQ(windows[1], -1);
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i]) {
        EXPECT_EQ(windows[i], g.Replay(batch[i]).window_ns) << threads << " " << i;
      }
    }
    EXPECT_EQ(g.Replay(nullptr).window_ns, base);
    // The workers' parameters are left as they were found: the same batch again, in another
    // order, gives the same windows.
    std::vector<const WhatIf*> reversed(batch.rbegin(), batch.rend());
    std::vector<int64_t> again = g.ReplayWindows(reversed, threads);
    for (size_t i = 0; i < batch.size(); ++i)
      EXPECT_EQ(again[batch.size() - 1 - i], windows[i]) << threads << " " << i;
  }
  EXPECT_LT(g.Replay(&fixes[4]).window_ns, g.Replay(&fixes[3]).window_ns);
}

TEST(ReplayGraph, DoubleBufferedEventSyncWaitsForNothing) {
  // Each step launches a kernel, then synchronizes on the previous step's event: that work has
  // long finished, so the synchronize returns at once (3 us) and no wait is inferred.
  Builder r;
  for (int s = 0; s < 10; ++s) {
    int64_t t0 = s * 100 * us;
    r.Launch("k", t0, 5 * us, t0 + 10 * us, 80 * us);
    r.Api("cudaEventSynchronize", t0 + 6 * us, 3 * us, 0);
  }
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 1000 * us);
  EXPECT_EQ(g.inferred_waits(), 0u);
  WhatIf fix;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) == "cudaEventSynchronize") fix.unblock_api.push_back(i);
  }
  EXPECT_EQ(g.Replay(&fix).window_ns, g.Replay(nullptr).window_ns);
}

TEST(ReplayGraph, HostWorkOffTheCriticalPathSavesNothing) {
  // GPU-bound: 200 us kernels launched every 50 us, far ahead; removing host time between the
  // launches changes nothing, removing kernel time does.
  Builder r;
  for (int s = 0; s < 10; ++s) r.Launch("k", s * 50 * us, 5 * us, 10 * us + s * 200 * us, 200 * us);
  model::Trace& t = r.Link();
  ReplayGraph g(t, 0, 2010 * us);
  int64_t base = g.Replay(nullptr).window_ns;
  WhatIf host;
  host.host_scale.push_back({t.api.track[0], 0, 500 * us, 0.0});
  EXPECT_EQ(g.Replay(&host).window_ns, base);
  WhatIf faster;
  faster.kernel_dur.emplace_back(9, 100 * us);  // the last kernel at half its time
  EXPECT_EQ(g.Replay(&faster).window_ns, base - 100 * us);
}

TEST(ReplayGraph, AQueuedKernelFollowsItsPredecessorAcrossARealDispatchGap) {
  // Real GPUs leave microseconds between back-to-back queued kernels: B was launched while A ran
  // and started 3 us after A ended. A 100 us shorter A moves B (and the window) 100 us earlier;
  // B is never pinned to its launch call plus the time it sat in the queue.
  model::Trace t;
  model::TrackId cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  model::TrackId s7 = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  auto launch = [&](uint64_t corr, int64_t at, int64_t ks, int64_t kd) {
    LaunchOn(t, cpu, s7, corr, at, ks, kd);
  };
  launch(1, 0, 10 * us, 300 * us);         // A: idle stream, 10 us latency
  launch(2, 10 * us, 313 * us, 100 * us);  // B: queued behind A, a 3 us dispatch gap
  model::LinkTrace(t);
  ReplayGraph g(t, 0, 500 * us);
  ExpectFirstKernel100UsShorterSaves100Us(g);
  ReplayResult path = g.Replay(nullptr, true);
  ASSERT_FALSE(path.path.empty());
  EXPECT_EQ(path.path[0].category, "GPU kernels");
}

TEST(ReplayGraph, ARecordedStreamWaitIsAnEdgeTheInferenceCouldNotSee) {
  // Stream 8 waits on an event recorded on stream 7 after A (Kineto's cuda_sync "Stream Wait
  // Event"); B starts 30 us after A ends - too late for a handoff to be inferred. The recorded
  // edge makes B follow A: a 100 us shorter A moves B and the window 100 us earlier.
  model::Trace t;
  model::TrackId cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  model::TrackId s7 = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  model::TrackId s8 = t.InternTrack(model::TrackKind::kGpuStream, "0", "8");
  LaunchOn(t, cpu, s7, 1, 0, 10 * us, 300 * us);  // A
  auto call = [&](const char* name, uint64_t corr, int64_t at) {
    model::ApiRow a;
    a.start_ns = at, a.dur_ns = 2 * us, a.name = t.strings.Intern(name), a.track = cpu,
    a.correlation = corr;
    t.api.Append(a);
  };
  call("cudaEventRecord", 10, 6 * us);
  call("cudaStreamWaitEvent", 11, 9 * us);
  model::GpuRangeRow w;
  w.start_ns = 10 * us, w.dur_ns = 1 * us, w.name = t.strings.Intern("Stream Wait Event"),
  w.track = s8, w.correlation = 11, w.kind = model::GpuRangeKind::kSync, w.waits_on_record = 10,
  w.waits_on_stream = 7;
  t.gpu_ranges.Append(w);
  LaunchOn(t, cpu, s8, 2, 12 * us, 340 * us, 100 * us);  // B
  model::LinkTrace(t);
  ReplayGraph g(t, 0, 500 * us);
  EXPECT_EQ(g.recorded_stream_waits(), 1u);
  EXPECT_EQ(g.inferred_stream_waits(), 0u);
  ExpectFirstKernel100UsShorterSaves100Us(g);
}

TEST(ReplayGraph, AnOpWaitingForAnotherStreamFollowsIt) {
  // Stream 7 runs a 300 us kernel; stream 8's kernel, launched at the same time, starts only when
  // it ends (an event wait between the streams): speeding up the first moves the second.
  model::Trace t;
  model::TrackId cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  model::TrackId s7 = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  model::TrackId s8 = t.InternTrack(model::TrackKind::kGpuStream, "0", "8");
  auto launch = [&](uint64_t corr, int64_t at, model::TrackId stream, int64_t ks, int64_t kd) {
    LaunchOn(t, cpu, stream, corr, at, ks, kd);
  };
  launch(1, 0, s7, 6 * us, 300 * us);          // idle stream: 6 us latency
  launch(2, 10 * us, s8, 307 * us, 100 * us);  // idle stream, yet starts as the first ends
  launch(3, 20 * us, s7, 407 * us, 50 * us);   // and the third waits for the second
  model::LinkTrace(t);
  ReplayGraph g(t, 0, 500 * us);
  EXPECT_EQ(g.inferred_stream_waits(), 2u);
  ExpectFirstKernel100UsShorterSaves100Us(g);
}

}  // namespace
}  // namespace gpuscope::analysis

namespace gpuscope::analysis {
namespace {

// Issue 51: per step, a thread launches a 2 ms kernel and then sits in an annotation with no op
// and no call (a spin on a flag the kernel writes) until the kernel ends, then launches the next.
// The gap is a wait for the kernel: the path is GPU work and untraced waits, not host work, and
// the kernel 1 ms shorter moves the host with it.
TEST(ReplayGraph, AHostGapWithoutAnOpWhileTheGpuRunsItsWorkIsAWait) {
  Builder b;
  for (int s = 0; s < 6; ++s) {
    const int64_t t0 = s * 2100 * us;
    b.Annotation("dispatch(F)", t0, 2100 * us);
    b.Launch("k", t0 + 10 * us, 5 * us, t0 + 20 * us, 2000 * us);  // ends t0 + 2020
    b.Op("aten::empty", t0 + 2025 * us, 5 * us);                   // the host goes on
  }
  model::Trace& t = b.Link();
  ReplayGraph g(t, 0, 6 * 2100 * us);
  EXPECT_GE(g.inferred_polls(), 5u);
  const ReplayResult r = g.Replay(nullptr, true);
  EXPECT_EQ(r.window_ns, g.observed_window_ns());
  std::map<std::string, int64_t> path;
  for (const auto& p : r.path) path[p.category] = p.ns;
  EXPECT_LE(path["host work"], r.window_ns / 100) << r.path.front().category;
  EXPECT_GT(path["untraced waits"], 0);
  EXPECT_GE(path["GPU kernels"], r.window_ns * 9 / 10);
  WhatIf faster;
  faster.kernel_dur.emplace_back(2, 1000 * us);  // the third step's kernel
  EXPECT_EQ(g.Replay(&faster).window_ns, r.window_ns - 1000 * us);
}

// The same gap with the GPU idle (the kernel ended long before): host work, no wait.
TEST(ReplayGraph, AHostGapAfterTheGpuIdledIsHostWork) {
  Builder b;
  for (int s = 0; s < 6; ++s) {
    const int64_t t0 = s * 2100 * us;
    b.Annotation("dispatch(F)", t0, 2100 * us);
    b.Launch("k", t0 + 10 * us, 5 * us, t0 + 20 * us, 200 * us);
    b.Op("aten::empty", t0 + 2025 * us, 5 * us);
  }
  model::Trace& t = b.Link();
  ReplayGraph g(t, 0, 6 * 2100 * us);
  EXPECT_EQ(g.inferred_polls(), 0u);
}

}  // namespace
}  // namespace gpuscope::analysis

namespace gpuscope::analysis {
namespace {

// Issue 56: in a run without GPU work (a CPU-only run) an op's time on the path is its own
// computation ("CPU op compute"); with GPU work in the trace it is the dispatch of that work.
TEST(ReplayGraph, AnOpOfACpuOnlyRunIsComputeNotDispatch) {
  auto path_of = [](bool with_gpu) {
    Builder b;
    for (int s = 0; s < 4; ++s) {
      const int64_t t0 = s * 1000 * us;
      b.Op("aten::addmm", t0, 900 * us);
      if (with_gpu) b.Launch("k", t0 + 900 * us, 5 * us, t0 + 910 * us, 20 * us);
    }
    model::Trace& t = b.Link();
    ReplayGraph g(t, 0, 4 * 1000 * us);
    std::map<std::string, int64_t> path;
    for (const auto& p : g.Replay(nullptr, true).path) path[p.category] = p.ns;
    return path;
  };
  std::map<std::string, int64_t> cpu = path_of(false);
  EXPECT_GE(cpu["CPU op compute"], 3 * 900 * us);
  EXPECT_EQ(cpu.count("op dispatch"), 0u);
  std::map<std::string, int64_t> gpu = path_of(true);
  EXPECT_GE(gpu["op dispatch"], 3 * 800 * us);
  EXPECT_EQ(gpu.count("CPU op compute"), 0u);
}

}  // namespace
}  // namespace gpuscope::analysis
