// analyze on hand-built models: each rule fires on its planted problem with the planted cost,
// and stays silent on the healthy variant; steady-state detection.

#include "analysis/findings/analyze.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze_test_util.h"
#include "analysis/findings/registry.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace analyze_test {  // this file's helpers, apart in a unity build
namespace {

using model::MemopKind;
using model::MemoryKind;

using test_models::Builder;
using test_models::us;

using test_models::Healthy;
using test_models::Rule;

TEST(Analyze, HealthyGpuBoundRunHasNoFindingAboveLow) {
  Builder b;
  Healthy(b);
  AnalysisReport r = Analyze(b.Link());
  EXPECT_GT(r.summary.gpu_busy_pct, 90);
  EXPECT_NE(r.summary.verdict.find("GPU-bound"), std::string::npos);
  for (const auto& f : r.findings) {
    EXPECT_TRUE(f.severity == Severity::kLow || f.severity == Severity::kInfo)
        << f.rule << " " << SeverityName(f.severity) << " " << f.detail;
  }
  EXPECT_TRUE(Rule(r, "gpu-idle").empty());
  EXPECT_TRUE(Rule(r, "low-utilization").empty());
  EXPECT_EQ(Rule(r, "kernel-hotspot").size(), 1u);
}

TEST(Analyze, WarmUpInAOnePassRunIsOneFindingNotAStorm) {
  // A cold one-pass run (issue 30): the allocator's first growth (cudaFree 400 ms), a first
  // launch that loads its module (150 ms), then 200 ordinary launches of tiny kernels.
  auto cold = [](bool with_steps) {
    auto b = std::make_unique<Builder>();
    b->Launch("fill_kernel", 0, 5 * us, 8 * us, 2 * us);  // the window opens at the first GPU op
    b->Api("cudaFree", 20 * us, 400'000 * us - 20 * us, 0);
    b->Launch("conv_kernel", 400'010 * us, 150'000 * us, 550'020 * us, 3 * us);
    for (int k = 0; k < 200; ++k) {
      int64_t t0 = 550'100 * us + k * 20 * us;
      b->Launch(k % 2 ? "relu_kernel" : "conv_kernel", t0, 6 * us, t0 + 8 * us, 3 * us);
    }
    if (with_steps) {
      for (int s = 0; s < 4; ++s) b->Step(s, s * 140'000 * us, 140'000 * us);
    }
    return b;
  };
  auto one_pass = cold(false);
  AnalysisReport r = Analyze(one_pass->Link());
  auto w = Rule(r, "warm-up");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0]->detail.find("first allocations"), std::string::npos) << w[0]->detail;
  EXPECT_NE(w[0]->detail.find("module loading"), std::string::npos);
  EXPECT_GT(w[0]->impact_ns, 500'000 * us);
  // No launch-bound storm priced on the module-loading launch.
  for (const Finding* f : Rule(r, "launch-bound")) EXPECT_LT(f->impact_ns, 10'000 * us);
  // With steps of equal length (none of them slow enough to be warm-up), the module loading is
  // found inside the steady steps too; the long free is the allocator's there, not first growth.
  auto stepped = cold(true);
  AnalysisReport stepped_report = Analyze(stepped->Link());  // Rule points into it
  auto in_steps = Rule(stepped_report, "warm-up");
  ASSERT_EQ(in_steps.size(), 1u);
  EXPECT_NE(in_steps[0]->detail.find("module loading"), std::string::npos);
  EXPECT_EQ(in_steps[0]->detail.find("first allocations"), std::string::npos);
  // A warm one-pass run (nothing long to set up): none either.
  Builder warm;
  for (int k = 0; k < 200; ++k) warm.Launch("k", k * 20 * us, 6 * us, k * 20 * us + 8 * us, 3 * us);
  EXPECT_TRUE(Rule(Analyze(warm.Link()), "warm-up").empty());
}

TEST(Analyze, GpuIdleInsideACompiledRegionNamesTheRegion) {
  // The host spends the gap inside a torch.compile region, in its aten::slice (issue 30): the
  // cause is the region, not the compiled graph's op.
  Builder b;
  for (int s = 0; s < 5; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Launch("k1", t0, 5 * us, t0 + 10 * us, 300 * us);
    b.Op("Torch-Compiled Region: 0/1", t0 + 8 * us, 600 * us);
    b.Op("aten::slice", t0 + 320 * us, 280 * us);
    b.Launch("k2", t0 + 610 * us, 5 * us, t0 + 620 * us, 300 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  bool region = false, slice = false;
  for (const Finding* f : Rule(r, "gpu-idle")) {
    region |= f->title.find("Torch-Compiled Region") != std::string::npos;
    slice |= f->title.find("aten::slice") != std::string::npos;
  }
  EXPECT_TRUE(region);
  EXPECT_FALSE(slice);
}

TEST(Analyze, GpuIdleFromACpuOpIsNamedAndCosted) {
  Builder b;
  for (int s = 0; s < 5; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Launch("k1", t0, 5 * us, t0 + 10 * us, 400 * us);
    b.Op("aten::nonzero_cpu_side", t0 + 10 * us, 500 * us);  // host busy while k1 runs ...
    b.Launch("k2", t0 + 515 * us, 5 * us, t0 + 610 * us,
             380 * us);  // ... and 200 us after it ended
  }
  AnalysisReport r = Analyze(b.Link());
  auto idle = Rule(r, "gpu-idle");
  ASSERT_FALSE(idle.empty());
  const Finding* f = nullptr;
  for (auto* x : idle) {
    if (x->title.find("aten::nonzero_cpu_side") != std::string::npos ||
        x->title.find("launch late") != std::string::npos)
      f = x;
  }
  ASSERT_NE(f, nullptr);
  // The fix removes the host work during the 200 us per step between k1's end (410) and k2's
  // start (610): the host then launches k2 as k1 ends.
  int64_t planted = 5 * 200 * us;
  int64_t total = 0;
  for (auto* x : idle) total += x->impact_ns;
  EXPECT_NEAR(static_cast<double>(total), static_cast<double>(planted), 5 * 10 * us);
}

TEST(Analyze, LaunchBoundStormOfTinyKernels) {
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Op("aten::add_", t0, 900 * us);
    for (int k = 0; k < 100; ++k)
      b.Launch("tiny_add", t0 + k * 9 * us, 8 * us, t0 + k * 9 * us + 8 * us, 2 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "launch-bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.kernel, "tiny_add");
  EXPECT_EQ(f[0]->where.op, "aten::add_");
  // The host is the bottleneck (each step's host time is fixed by its range): graph capture
  // removes the 100 launch calls of 8 us from it, and the kernels (2 us) keep up.
  EXPECT_EQ(f[0]->impact_ns, 4 * 100 * 8 * us);

  Builder healthy;
  Healthy(healthy);
  EXPECT_TRUE(Rule(Analyze(healthy.Link()), "launch-bound").empty());
}

TEST(Analyze, LaunchBoundIsPricedByWhatLaunchesCostNotByTheHostWorkBeforeThem) {
  // Issue 56: 13 tiny kernels after launch calls of milliseconds (module loading, the host's own
  // work) were priced at the GPU idle before them; 13 launches cost ~0.1 ms.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 11'000 * us;
    b.Step(s, t0, 11'000 * us);
    b.Op("aten::add_", t0, 900 * us);
    for (int k = 0; k < 100; ++k)
      b.Launch("tiny_add", t0 + k * 9 * us, 8 * us, t0 + k * 9 * us + 8 * us, 2 * us);
    for (int k = 0; k < 5; ++k) {
      int64_t at = t0 + 1000 * us + k * 2000 * us;
      b.Launch("tiny_cat", at, 1990 * us, at + 1995 * us, 2 * us);
    }
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "launch-bound");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.kernel, "tiny_add");
  EXPECT_NE(f[0]->detail.find(" launch calls over 32.000 us"), std::string::npos) << f[0]->detail;
  // The 100 launch calls of 8 us a step, not the 5 of 2 ms.
  EXPECT_NEAR(static_cast<double>(f[0]->standalone_ns), 4 * 100 * 8 * us, 4 * 10 * us);
}

TEST(Analyze, HostSyncPairsTheItemWithItsCopyAndCostsTheGpuIdle) {
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Launch("gemm", t0, 5 * us, t0 + 10 * us, 300 * us);
    b.Op("aten::item", t0 + 10 * us, 310 * us);  // waits for gemm, then copies 4 bytes
    b.Copy(MemopKind::kDtoH, "cudaMemcpyAsync", t0 + 20 * us, 5 * us, t0 + 311 * us, 2 * us, 4,
           MemoryKind::kPinned);
    b.Api("cudaStreamSynchronize", t0 + 25 * us, 295 * us, 0);
    b.Launch("gemm", t0 + 420 * us, 5 * us, t0 + 430 * us, 300 * us);  // GPU idle 313 -> 430
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "host-sync");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.op, "aten::item");
  EXPECT_NE(f[0]->detail.find("4 with a device-to-host copy"), std::string::npos) << f[0]->detail;
  // The synchronize waited 288 us per step for the gemm and the copy (its return latency, 7 us,
  // stays); the step's other host work is fixed and the host is the bottleneck, so the wait is
  // the saving of this fix alone.
  EXPECT_NEAR(static_cast<double>(f[0]->standalone_ns), 4 * 288 * us, 4 * 2 * us);

  Builder healthy;
  Healthy(healthy);
  EXPECT_TRUE(Rule(Analyze(healthy.Link()), "host-sync").empty());
}

TEST(Analyze, ItemOnACpuOnlyRunIsInformationThatWouldBlockOnAGpu) {
  // Issue 56: a CPU-only run's .item() waits for nothing (no GPU, no runtime call inside it):
  // info, unpriced, said to block on a GPU; never a synchronization priced as such.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Op("aten::addmm", t0 + 10 * us, 600 * us);
    b.Op("aten::item", t0 + 700 * us, 20 * us);
    b.Op("aten::_local_scalar_dense", t0 + 705 * us, 10 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "host-sync");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kInfo);
  EXPECT_EQ(f[0]->impact_ns, 0);
  EXPECT_TRUE(f[0]->fix.empty()) << f[0]->fix;
  EXPECT_NE(f[0]->title.find("would block on a GPU"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->detail.find("would block on a GPU"), std::string::npos) << f[0]->detail;
}

TEST(Analyze, DataLoaderWorkersThatFallBehindAreWaitsPricedByWhatTheGpuLost) {
  // Worker processes load the batches; the main thread waits 400 us per step for the next one.
  // Starved: the GPU has nothing queued during the wait, which is then the saving. Ahead: the
  // GPU still runs the previous step's 950 us gemm during most of the wait, which costs little.
  const std::string loader = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  for (bool gpu_ahead : {false, true}) {
    Builder b;
    for (int s = 0; s < 4; ++s) {
      int64_t t0 = s * 1000 * us;
      b.Step(s, t0, 1000 * us);
      b.Op(loader, t0 + 10 * us, 400 * us);
      int64_t k = gpu_ahead ? 950 * us : 100 * us;
      b.Launch("gemm", t0 + 420 * us, 5 * us, t0 + 430 * us, k);
    }
    AnalysisReport r = Analyze(b.Link());
    auto f = Rule(r, "data-loading");
    ASSERT_EQ(f.size(), 1u) << gpu_ahead;
    EXPECT_NE(f[0]->detail.find("4 waits for the next batch from the worker processes"),
              std::string::npos)
        << f[0]->detail;
    EXPECT_NE(f[0]->advice.find("raise num_workers"), std::string::npos);
    if (gpu_ahead)
      EXPECT_LT(f[0]->standalone_ns, 3 * 200 * us) << "the GPU ran queued work during the waits";
    else
      EXPECT_NEAR(static_cast<double>(f[0]->standalone_ns), 4 * 400 * us, 20 * us);
  }
}

TEST(Analyze, CommWaitPricesComputeThatWaitedForACollectiveOnAnotherStream) {
  // A GPU-bound loop (the host launches each step in 100 us): per step an all-reduce on the
  // communication stream (400 us), then a gemm (300 us) and a relu (50 us) on the compute stream,
  // launched long before, the gemm starting 2 us after the all-reduce ends (an event wait); the
  // next all-reduce starts 3 us after the relu. The GPU never idles, so gpu-idle is silent;
  // comm-wait prices the compute running beside the collectives.
  Builder b;
  model::TrackId comm = b.raw().InternTrack(model::TrackKind::kGpuStream, "0", "13");
  uint64_t corr = 1000;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 100 * us, g = 50 * us + s * 755 * us;
    b.Step(s, t0, 100 * us);
    b.Api("cudaLaunchKernel", t0 + 5 * us, 5 * us, ++corr);
    model::KernelRow r;
    r.start_ns = g, r.dur_ns = 400 * us, r.track = comm, r.device = 0, r.correlation = corr,
    r.name = b.raw().strings.Intern("ncclDevKernel_AllReduce_Sum_f32");
    b.raw().kernels.Append(r);
    b.Launch("gemm", t0 + 20 * us, 5 * us, g + 402 * us, 300 * us);
    b.Launch("relu", t0 + 30 * us, 5 * us, g + 702 * us, 50 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "comm-wait");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.kernel, "ncclDevKernel_AllReduce_Sum_f32");
  EXPECT_NE(f[0]->detail.find("4 kernels waited for a collective"), std::string::npos)
      << f[0]->detail;
  // Without the waits a step's compute (350 us) runs beside its all-reduce (400 us), which
  // still waits for the step before's relu: each step ends ~350 us sooner, and never more than
  // the waiting removed (4 x 402 us: each gemm waited from its all-reduce's start).
  EXPECT_NE(f[0]->detail.find("1.608 ms waiting"), std::string::npos) << f[0]->detail;
  EXPECT_GT(f[0]->standalone_ns, 3 * 350 * us);
  EXPECT_LE(f[0]->standalone_ns, 4 * 402 * us);
  EXPECT_TRUE(Rule(r, "gpu-idle").empty() || Rule(r, "gpu-idle")[0]->impact_ns < 100 * us);

  // Compute queued behind its own stream's work, and traces without collectives: silent.
  Builder queued;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    queued.Step(s, t0, 1000 * us);
    queued.Launch("gemm", t0 + 20 * us, 5 * us, t0 + 30 * us, 600 * us);
    queued.Launch("relu", t0 + 30 * us, 5 * us, t0 + 630 * us, 50 * us);
  }
  EXPECT_TRUE(Rule(Analyze(queued.Link()), "comm-wait").empty());
}

TEST(Analyze, CommWaitOnTheHostIsTheRangesOwnTimePricedByWhatTheGpuLost) {
  // Each step the host waits 2 ms in TorchRec's all-to-all awaitable (spinning: no call of its
  // own but one 10 us copy call) while the GPU has nothing queued, then launches 500 us of work.
  // A "wait_for_batch" range (the loader's) beside it is not communication.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 3000 * us;
    b.Step(s, t0, 3000 * us);
    b.Annotation("## KJTAllToAllSplitsAwaitable wait() ##", t0 + 10 * us, 2000 * us);
    b.Api("cudaMemcpyAsync", t0 + 1000 * us, 10 * us, 0);
    b.Annotation("## wait_for_batch ##", t0 + 2020 * us, 300 * us);
    b.Launch("gemm", t0 + 2400 * us, 5 * us, t0 + 2410 * us, 500 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "comm-wait");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.op, "## KJTAllToAllSplitsAwaitable wait() ##");
  EXPECT_NE(f[0]->detail.find("4 host waits for communication"), std::string::npos) << f[0]->detail;
  EXPECT_NE(f[0]->detail.find("7.960 ms in no call or op"), std::string::npos) << f[0]->detail;
  // Host-bound steps with 500 us of GPU work each: every step's launch comes 1.99 ms sooner, so
  // the whole waiting time is the saving (the copy call inside the range stays).
  EXPECT_EQ(f[0]->standalone_ns, 4 * 1990 * us);
}

}  // namespace
}  // namespace analyze_test
}  // namespace gpuscope::analysis
