// One-time costs seen by analyze (issue 50): a one-pass forward whose module loading, TorchScript
// first run and cuDNN first calls are reported once by warm-up and left out of everything else.

#include <gtest/gtest.h>

#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace one_time_test {  // this file's helpers, apart in a unity build
namespace {

using namespace test_models;  // NOLINT: the builder and its units

// A one-pass forward of a TorchScript model on a GPU that keeps up: an input copy, a first launch
// that loads its module (600 ms), the profiling executor's pause before the scripted function's
// first run (300 ms), three cuDNN first calls (2 ms each, later calls 40 us), then 930 kernels of
// 100 us launched ahead and a final synchronize. The steady part is GPU-bound.
void OnePassForward(Builder& b) {
  b.Copy(MemopKind::kHtoD, "cudaMemcpyAsync", 0, 20 * us, 30 * us, 50 * us, 1 << 20,
         MemoryKind::kPinned);
  b.Launch("fill", 100 * us, 600'000 * us, 600'110 * us, 50 * us);
  const int64_t t0 = 900'000 * us;
  b.Op("forward", t0, 110'000 * us);
  b.Op("fallback_function", t0 + 10 * us, 109'980 * us);
  for (int k = 0; k < 3; ++k) {
    const int64_t at = t0 + (100 + k * 2'100) * us;
    b.Op("aten::cudnn_convolution", at, 2'000 * us, "shape" + std::to_string(k));
    b.Launch("conv", at + 1'990 * us, 5 * us, at + 2'000 * us, 100 * us);
  }
  int64_t gpu = t0 + 6'500 * us;  // when the GPU is free again
  for (int k = 0; k < 30; ++k) {
    const int64_t at = t0 + (6'500 + k * 60) * us;
    b.Op("aten::cudnn_convolution", at, 40 * us, "shape" + std::to_string(k % 3));
    gpu = std::max(gpu, at + 40 * us);
    b.Launch("conv", at + 30 * us, 5 * us, gpu, 100 * us);
    gpu += 100 * us;
  }
  for (int k = 0; k < 900; ++k) {
    const int64_t at = t0 + (8'400 + k * 10) * us;
    b.Launch("gemm", at, 5 * us, gpu, 100 * us);
    gpu += 100 * us;
  }
  b.Api("cudaDeviceSynchronize", t0 + 17'500 * us, gpu - t0 - 17'500 * us, 0);
}

TEST(OneTime, AOnePassForwardIsJudgedOnItsSteadyPart) {
  Builder b;
  OnePassForward(b);
  AnalysisReport r = Analyze(b.Link());
  // The window says what it left out, and the verdict is the steady part's: GPU-bound.
  const std::string window = r.steady.WindowText();
  EXPECT_NE(window.find("steady part: "), std::string::npos) << window;
  EXPECT_NE(window.find("module loading"), std::string::npos) << window;
  EXPECT_NE(window.find("TorchScript first run"), std::string::npos) << window;
  EXPECT_NE(window.find("ops' first calls"), std::string::npos) << window;
  EXPECT_EQ(r.summary.verdict_kind, VerdictKind::kGpuBound) << r.summary.verdict;
  EXPECT_GT(r.summary.gpu_busy_pct, 90) << r.summary.verdict;
  // One warm-up finding prices the one-time costs, on the window as it ran.
  auto w = Rule(r, "warm-up");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_GT(w[0]->impact_ns, 850'000 * us);
  EXPECT_NE(w[0]->detail.find("aten::cudnn_convolution x3"), std::string::npos) << w[0]->detail;
  // Nothing else is priced on them: no instance inside them, no idle gap of theirs, no low
  // utilization, no launch latency.
  for (const Finding& f : r.findings) {
    if (f.rule == "warm-up") continue;
    EXPECT_TRUE(f.rule != "gpu-idle" || f.impact_ns < 1'000 * us) << f.detail;
    EXPECT_NE(f.rule, "low-utilization");
    for (const Evidence& e : f.evidence)
      EXPECT_LE(2 * r.steady.one_time.Within(e.start_ns, e.start_ns + e.dur_ns), e.dur_ns)
          << f.rule << ": " << e.what;
  }
  for (const PathShare& p : r.summary.critical_path)
    EXPECT_TRUE(p.category != "launch latency" || p.ns < 1'000 * us) << p.ns;
  // The long stalls are one-time, never "queued on the idle GPU".
  for (const Stall& s : r.stalls) {
    if (s.dur_ns < 100'000 * us) continue;
    EXPECT_FALSE(s.one_time.empty()) << s.host;
    EXPECT_EQ(s.host.find("sat queued"), std::string::npos) << s.host;
  }
}

TEST(OneTime, ALongLaunchCallIsTheCallsTimeNotLaunchLatency) {
  // Every step's launch call takes 2 ms (not a first launch: the steady state's own), its kernel
  // starts right after the call returns: on the critical path it is a launch call.
  Builder b;
  for (int s = 0; s < 5; ++s) {
    const int64_t t0 = s * 10'000 * us;
    b.Step(s, t0, 10'000 * us);
    b.Launch("k", t0 + 10 * us, 2'000 * us, t0 + 2'015 * us, 100 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  int64_t calls = 0, latency = 0;
  for (const PathShare& p : r.summary.critical_path) {
    if (p.category == "launch calls") calls += p.ns;
    if (p.category == "launch latency") latency += p.ns;
  }
  EXPECT_GE(calls, 4 * 2'000 * us);
  EXPECT_LT(latency, 100 * us);
}

TEST(OneTime, APlantedOneTimePauseLeavesTheVerdictAsItWas) {
  // The same steady part with and without a module-loading launch put before it: the verdict,
  // the busy share and the other findings' prices do not move; warm-up prices the pause.
  auto steady = [](Builder& b, int64_t t0) {
    int64_t gpu = t0 + 100 * us;
    for (int k = 0; k < 500; ++k) {
      b.Launch(k % 2 ? "gemm" : "relu", t0 + k * 10 * us, 5 * us, gpu, 100 * us);
      gpu += 100 * us + (k % 50 == 49 ? 2'000 * us : 0);  // a host-bound hiccup now and then
    }
  };
  Builder plain;
  plain.Launch("first", 0, 5 * us, 10 * us, 5 * us);
  steady(plain, 100 * us);
  Builder planted;
  planted.Launch("first", 0, 5 * us, 10 * us, 5 * us);
  planted.Launch("loader", 50 * us, 400'000 * us, 400'060 * us, 5 * us);
  steady(planted, 400'100 * us);
  AnalysisReport a = Analyze(plain.Link()), p = Analyze(planted.Link());
  EXPECT_EQ(a.summary.verdict_kind, p.summary.verdict_kind) << p.summary.verdict;
  EXPECT_NEAR(a.summary.gpu_busy_pct, p.summary.gpu_busy_pct, 1.0);
  ASSERT_EQ(Rule(p, "warm-up").size(), 1u);
  EXPECT_NEAR(static_cast<double>(Rule(p, "warm-up")[0]->impact_ns), 400'000.0 * us, 1'000.0 * us);
  for (const Finding& f : a.findings) {
    auto same = Rule(p, f.rule);
    ASSERT_FALSE(same.empty()) << f.rule;
    EXPECT_NEAR(static_cast<double>(same[0]->impact_ns), static_cast<double>(f.impact_ns),
                0.05 * static_cast<double>(f.impact_ns) + 10.0 * us)
        << f.rule;
  }
}

// Six steps: a blocking input copy, ten 800 us kernels launched ahead, a sync at the step's end.
// `first_wait`: how long the first step's copy waits before it runs (the GPU still runs work from
// before the trace: a profiler started mid-step); `offset`: how much later every GPU op starts
// (host and GPU clocks that disagree).
void SteppedCopies(Builder& b, int64_t first_wait, int64_t offset) {
  int64_t t0 = 0;
  for (int s = 0; s < 6; ++s) {
    const int64_t wait = s == 0 ? first_wait : 20 * us;
    const int64_t copy = t0 + 10 * us + wait;
    b.Copy(MemopKind::kHtoD, "cudaMemcpy", t0 + 10 * us, wait + 520 * us, copy + offset, 500 * us,
           1 << 20, MemoryKind::kPageable);
    int64_t gpu = copy + 520 * us;
    for (int k = 0; k < 10; ++k) {
      b.Launch("gemm", copy + 600 * us + k * 10 * us, 5 * us, gpu + offset, 800 * us);
      gpu += 810 * us;
    }
    const int64_t sync = copy + 800 * us;
    b.Api("cudaStreamSynchronize", sync, gpu - sync + 10 * us, 0);
    b.Step(s, t0, gpu + 50 * us - t0);
    t0 = gpu + 50 * us;
  }
}

TEST(OneTime, AFirstCopyWaitingForWorkFromBeforeTheTraceIsLeftOutNotPriced) {
  // The profiler started mid-step: the first step's input copy waits 4 ms for GPU work the trace
  // does not hold (a resnet50's waits 36 ms; its step is under the warm-up factor). The wait is
  // left out of the window and named, no finding prices it, and warm-up does not claim it.
  Builder b;
  SteppedCopies(b, 4'000 * us, 0);
  AnalysisReport r = Analyze(b.Link());
  const std::string window = r.steady.WindowText();
  EXPECT_NE(window.find("waiting for GPU work the trace does not hold"), std::string::npos)
      << window;
  EXPECT_NEAR(static_cast<double>(r.steady.one_time.ns), 4'000.0 * us, 50.0 * us);
  EXPECT_TRUE(Rule(r, "warm-up").empty());
  // Without the wait, nothing is left out; with it, every finding is priced as without it and
  // the verdict is the same.
  Builder plain;
  SteppedCopies(plain, 20 * us, 0);
  AnalysisReport a = Analyze(plain.Link());
  EXPECT_TRUE(a.steady.one_time.empty());
  EXPECT_EQ(a.summary.verdict_kind, r.summary.verdict_kind) << r.summary.verdict;
  ASSERT_EQ(a.findings.size(), r.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].rule, r.findings[i].rule);
    EXPECT_NEAR(static_cast<double>(r.findings[i].impact_ns),
                static_cast<double>(a.findings[i].impact_ns),
                0.05 * static_cast<double>(a.findings[i].impact_ns) + 50.0 * us)
        << a.findings[i].rule;
  }
}

TEST(OneTime, ClocksThatDisagreeAreNoWaitForWorkFromBeforeTheTrace) {
  // Every GPU op starts 6 ms after its launch (the clocks disagree), the first 10 ms: not 20x
  // the device's least wait, so nothing is taken for work the trace does not hold.
  Builder b;
  SteppedCopies(b, 4'000 * us, 6'000 * us);
  AnalysisReport r = Analyze(b.Link());
  for (const OneTimePart& p : r.steady.one_time.parts)
    EXPECT_FALSE(p.before_trace) << p.what << " " << p.start_ns << " " << p.end_ns;
}

}  // namespace
}  // namespace one_time_test
}  // namespace gpuscope::analysis
