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
