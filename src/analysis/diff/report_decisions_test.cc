// The decisions the report and the diff gate take from analysis results.

#include <gtest/gtest.h>

#include "analysis/diff/diff_gate.h"
#include "analysis/steps/representative_iteration.h"

namespace gpuscope::analysis {
namespace {

SteadyState Steady(std::initializer_list<int64_t> durations, size_t warmup, int64_t median) {
  SteadyState ss;
  int64_t t = 1000;
  int64_t n = 1;
  for (int64_t d : durations) {
    ss.iterations.push_back({n++, t, d});
    t += d;
  }
  ss.warmup = warmup;
  ss.start_ns = ss.iterations.empty() ? 0 : ss.iterations[warmup].start_ns;
  ss.end_ns = t;
  ss.latency.median_ns = median;
  return ss;
}

TEST(RepresentativeIteration, ClosestToTheMedianAfterWarmUp) {
  // Iteration 1 (warm-up) is exactly the median but is left out; 3 is the closest steady one.
  SteadyState ss = Steady({100, 300, 110, 90}, 1, 100);
  RepresentativeWindow w = PickRepresentativeIteration(ss);
  EXPECT_EQ(w.iteration, 3);
  EXPECT_EQ(w.start_ns, 1000 + 100 + 300);
  EXPECT_EQ(w.end_ns, w.start_ns + 110);
}

TEST(RepresentativeIteration, TiesKeepTheFirst) {
  SteadyState ss = Steady({90, 110}, 0, 100);
  EXPECT_EQ(PickRepresentativeIteration(ss).iteration, 1);
}

TEST(RepresentativeIteration, WithoutIterationsTheWholeWindow) {
  SteadyState ss;
  ss.start_ns = 5;
  ss.end_ns = 50;
  RepresentativeWindow w = PickRepresentativeIteration(ss);
  EXPECT_EQ(w.iteration, -1);
  EXPECT_EQ(w.start_ns, 5);
  EXPECT_EQ(w.end_ns, 50);
}

DiffReport Report(DiffReport::Verdict v, double change) {
  DiffReport r;
  r.verdict_kind = v;
  r.change_percent = change;
  return r;
}

TEST(DiffGate, FailsOnlyOnASignificantSlowdownBeyondTheAllowance) {
  EXPECT_TRUE(CheckGate(Report(DiffReport::Verdict::kSlower, 12.0), 5).regression);
  EXPECT_FALSE(CheckGate(Report(DiffReport::Verdict::kSlower, 4.0), 5).regression);
  // Slower by the numbers but not significant: no failure.
  EXPECT_FALSE(CheckGate(Report(DiffReport::Verdict::kNoChange, 40.0), 5).regression);
  EXPECT_FALSE(CheckGate(Report(DiffReport::Verdict::kFaster, -30.0), 0).regression);
  EXPECT_DOUBLE_EQ(CheckGate(Report(DiffReport::Verdict::kSlower, 12.0), 5).change_percent, 12.0);
}

}  // namespace
}  // namespace gpuscope::analysis
