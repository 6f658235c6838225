// Trace health on hand-built models: each kind of impossible data gives its note, named after the
// kind, with what was seen and what it does to the analysis.

#include "analysis/timeline/health.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/test_model_builder.h"
#include "model/plausibility.h"

namespace gpuscope::analysis {
namespace {

using test_models::Builder;
using test_models::us;

TEST(Health, ImpossibleDataIsNotedFirstUnderItsKindsName) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Launch("k", i * 100 * us, 5 * us, i * 100 * us + 10 * us, 50 * us);
  model::Trace& t = b.Link();
  t.problems.Add(model::kTimeUnit, "kernels last 1000x their launch gaps");
  t.problems.Add(model::kDuplicateEvents, "kernel 'k' at 0", 3);
  t.problems.Add(model::kDuplicateEvents, "kernel 'k' at 100", 1);
  auto notes = CheckHealth(t, FindSteadyState(t));
  ASSERT_GE(notes.size(), 2u);
  // In the order of their effects' table, whatever the order they were counted in.
  EXPECT_EQ(notes[0].id, "duplicate-events");
  EXPECT_EQ(notes[0].seen, "4 cases; first: kernel 'k' at 0");
  EXPECT_NE(notes[0].effect.find("copies were dropped"), std::string::npos);
  EXPECT_EQ(notes[1].id, "time-unit");
  EXPECT_EQ(notes[1].seen, "kernels last 1000x their launch gaps");
  for (size_t i = 2; i < notes.size(); ++i) EXPECT_NE(notes[i].id, "time-unit");
}

TEST(Health, NoImpossibleNoteWithoutTheProblem) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Launch("k", i * 100 * us, 5 * us, i * 100 * us + 10 * us, 50 * us);
  model::Trace& t = b.Link();
  for (const HealthNote& n : CheckHealth(t, FindSteadyState(t))) {
    EXPECT_NE(n.id, "duplicate-events");
    EXPECT_NE(n.id, "time-unit");
  }
}

}  // namespace
}  // namespace gpuscope::analysis

namespace gpuscope::analysis {
namespace {

const HealthNote* Find(const std::vector<HealthNote>& notes, const std::string& id) {
  for (const HealthNote& n : notes)
    if (n.id == id) return &n;
  return nullptr;
}

// Issue 51: the host waits 30 ms in a synchronize while 1 ms of kernels is recorded - the GPU
// work it waited for is not in the trace; the verdict cannot rest on it.
TEST(Health, HostWaitsLongerThanTheRecordedWorkAreGpuWorkMissing) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Launch("k", i * 60 * us, 5 * us, i * 60 * us + 10 * us, 50 * us);
  b.Api("cudaStreamSynchronize", 1200 * us, 30'000 * us, 0);
  b.Launch("k", 31'300 * us, 5 * us, 31'310 * us, 50 * us);
  b.Api("cudaStreamSynchronize", 31'320 * us, 30'000 * us, 0);
  model::Trace& t = b.Link();
  const auto notes = CheckHealth(t, FindSteadyState(t));
  const HealthNote* n = Find(notes, "gpu-work-missing");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->seen.find("while no recorded GPU op runs"), std::string::npos) << n->seen;
  EXPECT_FALSE(n->trusted.empty());
  EXPECT_EQ(Find(notes, "times-inconsistent"), nullptr);
}

// A synchronize that waits for kernels running all along explains its wait: no note.
TEST(Health, AWaitTheRecordedWorkExplainsIsNoNote) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Launch("k", i * us, 1 * us, 10 * us + i * 1600 * us, 1500 * us);
  b.Api("cudaStreamSynchronize", 30 * us, 30'000 * us, 0);
  model::Trace& t = b.Link();
  const auto notes = CheckHealth(t, FindSteadyState(t));
  EXPECT_EQ(Find(notes, "gpu-work-missing"), nullptr);
}

// Two event waits holding 5 ms each with no recorded GPU op, in a 2 s run whose GPU is busy
// 1.6 s (a resnet50 with 10,000 GPU ops): a detail of a trustworthy timeline, not missing work.
TEST(Health, ShortUnexplainedWaitsInALongBusyRunAreNoNote) {
  Builder b;
  for (int i = 0; i < 2000; ++i) {
    if ((i >= 500 && i < 507) || (i >= 1200 && i < 1207)) continue;  // the GPU idles there
    b.Launch("k", i * 1000 * us, 5 * us, i * 1000 * us + 10 * us, 800 * us);
  }
  b.Api("cudaEventSynchronize", 500'900 * us, 5'000 * us, 0);
  b.Api("cudaEventSynchronize", 1'200'900 * us, 5'000 * us, 0);
  model::Trace& t = b.Link();
  EXPECT_EQ(Find(CheckHealth(t, FindSteadyState(t)), "gpu-work-missing"), nullptr);
}

// The tracer's own word: a message that it lost events makes gpu-work-missing (the verdict
// cannot rest on the recorded part alone) without any unexplained wait; its other warnings are
// tracer-warnings, which leave the verdict standing.
TEST(Health, TheTracersWordThatItLostEventsIsGpuWorkMissing) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Launch("k", i * 60 * us, 5 * us, i * 60 * us + 10 * us, 50 * us);
  model::Trace& t = b.Link();
  EXPECT_EQ(Find(CheckHealth(t, FindSteadyState(t)), "gpu-work-missing"), nullptr);
  t.meta.tracer_messages = {"Not all CUDA events might have been collected.",
                            "CUDA device 0: Unified Memory cannot be traced. (error)"};
  const auto notes = CheckHealth(t, FindSteadyState(t));
  const HealthNote* lost = Find(notes, "gpu-work-missing");
  ASSERT_NE(lost, nullptr);
  EXPECT_NE(lost->seen.find("'Not all CUDA events might have been collected.'"), std::string::npos)
      << lost->seen;
  EXPECT_FALSE(lost->trusted.empty());
  const HealthNote* other = Find(notes, "tracer-warnings");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other->seen.find("Unified Memory"), std::string::npos) << other->seen;
  EXPECT_TRUE(other->trusted.empty());
}

// Kernels written back to back (every gap 0-1 ns) although each was launched after the one
// before it ended cannot be measured times: times-inconsistent, with the re-timed stream's span
// as impossible; 2 us gaps are real.
TEST(Health, KernelsBackToBackToTheNanosecondAreTimesInconsistent) {
  for (int64_t gap : {int64_t{1}, int64_t{2000}}) {
    Builder b;
    int64_t at = 100 * us;
    for (int i = 0; i < 150; ++i) {
      b.Launch("k", at + 2 * us, 1 * us, at, 10 * us);
      at += 10 * us + gap;
    }
    model::Trace& t = b.Link();
    const auto notes = CheckHealth(t, FindSteadyState(t));
    const HealthNote* n = Find(notes, "times-inconsistent");
    if (gap > 1) {
      EXPECT_EQ(n, nullptr);
      continue;
    }
    ASSERT_NE(n, nullptr);
    EXPECT_NE(n->seen.find("149 of 149 kernels launched after"), std::string::npos) << n->seen;
    ASSERT_EQ(n->impossible.size(), 1u);
    EXPECT_EQ(n->impossible[0].first, 100 * us);
    EXPECT_FALSE(n->trusted.empty());
  }
}

// rocprofv3 spacing a graph's kernels 5 us apart: tracer-overhead, with the run without it.
TEST(Health, AGraphsKernelsEvenlySpacedByARocmTracerAreTracerOverhead) {
  for (const char* format : {"rocprofv3", "kineto"}) {
    Builder b;
    int64_t at = 100 * us;
    for (int g = 0; g < 4; ++g) {
      const uint64_t corr = 1000 + static_cast<uint64_t>(g);
      b.Api("hipGraphLaunch", g * 10 * us, 5 * us, corr);
      for (int i = 0; i < 40; ++i) {
        b.Kernel("k", at, 3 * us, corr);
        at += 3 * us + 5 * us;
      }
    }
    model::Trace& t = b.raw();
    t.meta.format = format;
    b.Link();
    const auto notes = CheckHealth(t, FindSteadyState(t));
    const HealthNote* n = Find(notes, "tracer-overhead");
    if (std::string(format) == "kineto") {
      EXPECT_EQ(n, nullptr);
      continue;
    }
    ASSERT_NE(n, nullptr);
    EXPECT_NE(n->seen.find("without the tracer the run takes about"), std::string::npos) << n->seen;
  }
}

}  // namespace
}  // namespace gpuscope::analysis
