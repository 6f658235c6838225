// The decisions the report and the diff gate take from analysis results.

#include <gtest/gtest.h>

#include "analysis/diff/diff_gate.h"
#include "analysis/steps/representative_iteration.h"

namespace gpuscope::analysis {
namespace report_decisions_test {  // this file's helpers, apart in a unity build
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

TEST(DiffGate, TheMessageSaysTheChangeWhetherItIsSignificantItsPAndTheSteps) {
  // Issue 56: "pass: no significant change by +25.6%" read as a contradiction.
  DiffReport r = Report(DiffReport::Verdict::kNoChange, 25.6);
  r.basis = "per-iteration latency";
  r.p_value = 0.0728, r.tested_before = 8, r.tested_after = 8;
  EXPECT_EQ(CheckGate(r, 5).message,
            "pass: +25.6% in per-iteration latency, not significant (p = 0.0728 on 8 vs 8 steady "
            "steps: more steps may tell); the gate fails only a significant slowdown above +5.0%");
  r.verdict_kind = DiffReport::Verdict::kSlower, r.significant = true, r.p_value = 0.0002;
  r.tested_before = r.tested_after = 30;
  EXPECT_EQ(CheckGate(r, 5).message,
            "FAIL: slower by +25.6% in per-iteration latency, significant (p = 0.0002 on 30 vs 30 "
            "steady steps); the gate allows +5.0%");
  // Without a rank test the message says what decided.
  r.p_value = -1, r.test = "too few iterations for a rank test (3 vs 3)";
  EXPECT_NE(CheckGate(r, 50).message.find("significant (too few iterations for a rank test"),
            std::string::npos);
}

}  // namespace
}  // namespace report_decisions_test
}  // namespace gpuscope::analysis
