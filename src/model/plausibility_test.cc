#include "model/plausibility.h"

#include <gtest/gtest.h>

#include <string>

#include "model/linker.h"

namespace gpuscope::model {
namespace plausibility_test {  // this file's helpers, apart in a unity build
namespace {

constexpr int64_t kEpoch = 1'700'000'000'000'000'000;

// A CPU-bound run: launch i at kEpoch + 50 us * i (5 us long, correlation i + 1) on one thread,
// its kernel (10 us) 8 us later on one stream.
struct LaunchRun {
  Trace t;
  void Launch(int64_t at, uint64_t corr, int64_t kernel_at, int64_t kernel_dur,
              const char* stream = "7", int64_t launch_dur = 5'000) {
    ApiRow a;
    a.start_ns = at, a.dur_ns = launch_dur, a.correlation = corr;
    a.name = t.strings.Intern("cudaLaunchKernel");
    a.track = t.InternTrack(TrackKind::kCpuThread, "1", "1");
    t.api.Append(a);
    KernelRow k;
    k.start_ns = kernel_at, k.dur_ns = kernel_dur, k.correlation = corr;
    k.name = t.strings.Intern("gemm_" + std::to_string(corr % 3));
    k.track = t.InternTrack(TrackKind::kGpuStream, "0", stream);
    k.device = 0;
    t.kernels.Append(k);
  }
  void Steps(int n, int64_t each) {
    for (int i = 0; i < n; ++i) Step(i, kEpoch + i * each, each);
  }
  void Step(int number, int64_t at, int64_t dur) {
    CpuRangeRow r;
    r.start_ns = at, r.dur_ns = dur;
    r.name = t.strings.Intern("ProfilerStep#" + std::to_string(number));
    r.track = t.InternTrack(TrackKind::kCpuThread, "1", "1");
    t.cpu.Append(r);
  }
  explicit LaunchRun(int n, int64_t scale = 1) {
    for (int i = 0; i < n; ++i) {
      int64_t at = kEpoch + i * 50'000 * scale;
      Launch(at, static_cast<uint64_t>(i + 1), at + 8'000 * scale, 10'000 * scale, "7",
             5'000 * scale);
    }
  }
};

KernelRow CopyOf(const Trace& t, size_t i) {
  KernelRow k;
  const KernelTable& ks = t.kernels;
  k.start_ns = ks.start_ns[i], k.dur_ns = ks.dur_ns[i], k.name = ks.name[i], k.track = ks.track[i];
  k.correlation = ks.correlation[i], k.device = ks.device[i];
  return k;
}

uint64_t Count(const Trace& t, ProblemKind kind) { return t.problems.Count(kind); }

TEST(Plausibility, AHealthyRunHasNoProblem) {
  LaunchRun r(100);
  r.Steps(4, 1'250'000);
  LinkTrace(r.t);
  EXPECT_TRUE(r.t.problems.empty());
  EXPECT_EQ(r.t.iterations.size(), 4u);
}

TEST(Plausibility, ExactRepeatsAreDroppedAndCountedOnce) {
  LaunchRun r(40);
  for (int i = 0; i < 40; i += 2) r.t.kernels.Append(CopyOf(r.t, i));
  LinkTrace(r.t);
  EXPECT_EQ(r.t.kernels.size(), 40u);
  EXPECT_EQ(Count(r.t, kDuplicateEvents), 20u);
  // A kernel at the same time with another name is not a repeat.
  LaunchRun s(40);
  KernelRow k = CopyOf(s.t, 0);
  k.name = s.t.strings.Intern("other");
  s.t.kernels.Append(k);
  LinkTrace(s.t);
  EXPECT_EQ(s.t.kernels.size(), 41u);
  EXPECT_EQ(Count(s.t, kDuplicateEvents), 0u);
}

TEST(Plausibility, AKernelInsideAnotherOnOneStreamIsCountedButAnEarlyStartIsNot) {
  LaunchRun r(40);
  r.t.kernels.dur_ns[3] = 60'000;  // kernel 4 starts and ends inside kernel 3
  LinkTrace(r.t);
  EXPECT_EQ(Count(r.t, kStreamOverlap), 1u);
  // Programmatic dependent launch: the next kernel starts early but ends after.
  LaunchRun pdl(40);
  pdl.t.kernels.start_ns[4] -= 45'000;
  pdl.t.kernels.dur_ns[4] += 45'000;
  LinkTrace(pdl.t);
  EXPECT_EQ(Count(pdl.t, kStreamOverlap), 0u);
  // Two streams overlap freely.
  LaunchRun two(0);
  two.Launch(kEpoch, 1, kEpoch + 8'000, 100'000, "7");
  two.Launch(kEpoch + 10'000, 2, kEpoch + 20'000, 10'000, "8");
  LinkTrace(two.t);
  EXPECT_EQ(Count(two.t, kStreamOverlap), 0u);
}

TEST(Plausibility, AClockThatJumpsBackIsNamedOnTheHostAndTheStream) {
  LaunchRun r(100);
  for (size_t i = 50; i < 100; ++i) {  // the second half 10 s earlier, launches and kernels
    r.t.api.start_ns[i] -= 10'000'000'000;
    r.t.kernels.start_ns[i] -= 10'000'000'000;
  }
  LinkTrace(r.t);
  EXPECT_EQ(Count(r.t, kClockBackwards), 1u);
  EXPECT_EQ(Count(r.t, kLaunchOrder), 1u);
}

TEST(Plausibility, RotatedCorrelationIdsBreakTheLaunchOrderOnly) {
  LaunchRun r(100);
  for (size_t i = 0; i < 100; ++i) r.t.kernels.correlation[i] = (i + 1) % 100 + 1;
  LinkTrace(r.t);
  EXPECT_EQ(Count(r.t, kClockBackwards), 0u);
  EXPECT_EQ(Count(r.t, kLaunchOrder), 1u);
}

TEST(Plausibility, ZeroDurationsAndWrongUnitsAreTold) {
  LaunchRun zero(50);
  for (auto& d : zero.t.kernels.dur_ns) d = 0;
  LinkTrace(zero.t);
  EXPECT_EQ(Count(zero.t, kZeroDurations), 50u);
  EXPECT_EQ(Count(zero.t, kTimeUnit), 0u);

  LaunchRun ms(50);  // milliseconds read as microseconds: every time 1000x too small
  for (size_t i = 0; i < 50; ++i) {
    ms.t.kernels.start_ns[i] = kEpoch + (ms.t.kernels.start_ns[i] - kEpoch) / 1000;
    ms.t.kernels.dur_ns[i] /= 1000;
  }
  LinkTrace(ms.t);
  EXPECT_EQ(Count(ms.t, kTimeUnit), 50u);

  LaunchRun ns(50, 1000);  // nanoseconds read as microseconds: launches and kernels of milliseconds
  LinkTrace(ns.t);
  EXPECT_EQ(Count(ns.t, kTimeUnit), 50u);

  LaunchRun few(5);  // too few kernels to judge
  for (auto& d : few.t.kernels.dur_ns) d = 0;
  LinkTrace(few.t);
  EXPECT_TRUE(few.t.problems.empty());
}

TEST(Plausibility, AStepHoldingOthersIsLeftOutOfTheIterations) {
  LaunchRun r(100);
  r.Steps(4, 1'250'000);
  r.Step(99, kEpoch - 1'000, 5'002'000);
  LinkTrace(r.t);
  EXPECT_EQ(Count(r.t, kNestedSteps), 1u);
  ASSERT_EQ(r.t.iterations.size(), 4u);
  EXPECT_EQ(r.t.iterations.front().number, 0);
  // Steps that touch within a microsecond follow each other.
  LaunchRun touch(10);
  touch.Step(0, kEpoch, 100'500);
  touch.Step(1, kEpoch + 100'000, 100'000);
  LinkTrace(touch.t);
  EXPECT_EQ(Count(touch.t, kNestedSteps), 0u);
}

}  // namespace
}  // namespace plausibility_test
}  // namespace gpuscope::model
