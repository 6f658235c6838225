// Stages on hand-built models (issue 50): graph-launched decode passes after two prefill
// passes are steps, not layers; the parts of a policy model inside one graph replay (a ViT's
// layers, an LLM's layers, diffusion steps that each hold layers) are told apart.

#include "analysis/steps/stages.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/common/test_model_builder.h"
#include "analysis/steps/steady_state.h"

namespace gpuscope::analysis {
namespace stages_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

// prefix + "_k<i>", built in steps (GCC 12 misreads string + string chains: -Wrestrict).
std::string Name(const std::string& prefix, int i) {
  std::string out = prefix;
  out += "_k";
  out += std::to_string(i);
  return out;
}

// The names of one pass over a model: an embedding, `layers` blocks of `per_layer` kernels
// named prefix + "_k<i>", a head.
std::vector<std::string> Pass(const std::string& prefix, int layers, int per_layer) {
  std::vector<std::string> out{Name(prefix + "_embed", 0)};
  for (int l = 0; l < layers; ++l)
    for (int k = 0; k < per_layer; ++k) out.push_back(Name(prefix, k));
  out.push_back(Name(prefix + "_head", 0));
  return out;
}

TEST(Stages, GraphLaunchedDecodesAfterPrefillsAreStepsNotLayers) {
  // An .rpd of 22 forward passes: 2 eager prefills, then 20 decodes of one graph launch each
  // (42 kernels: 4 layers of 10). Without the stages, the whole run read as "22 repeats of a
  // block (layers)".
  Builder b;
  int64_t t = 0;
  for (int p = 0; p < 2; ++p)
    for (const std::string& k : Pass("prefill", 4, 10)) {
      b.Launch(k, t, 5 * us, t + 10 * us, 20 * us);
      t += 30 * us;
    }
  for (int d = 0; d < 20; ++d) {
    const uint64_t corr = 100000 + static_cast<uint64_t>(d);
    b.Api("cudaGraphLaunch", t, 20 * us, corr);
    int64_t g = t + 30 * us;
    for (const std::string& k : Pass("decode", 4, 10)) {
      b.Kernel(k, g, 8 * us, corr);
      g += 10 * us;
    }
    t = g + 100 * us;  // sampling on the host
  }
  const model::Trace& trace = b.Link();
  auto [lo, hi] = trace.TimeSpan();
  std::vector<Stage> stages = FindStages(trace, lo, hi + 1, 3);
  ASSERT_EQ(stages.size(), 2u) << stages.size();
  EXPECT_EQ(stages[0].label, "prefix");
  EXPECT_EQ(stages[0].kernels, 84u);
  EXPECT_EQ(stages[1].label, "20 x step");
  EXPECT_EQ(stages[1].kind, StageKind::kSteps);
  EXPECT_EQ(stages[1].separator, "a graph launch");
  EXPECT_EQ(stages[1].kernels, 42u);
  // The stages cover the window, in order.
  EXPECT_EQ(stages[0].start_ns, lo);
  EXPECT_EQ(stages[0].end_ns(), stages[1].start_ns);
  EXPECT_EQ(stages[1].end_ns(), hi + 1);
  // The steady window (the decodes, the prefills its warm-up) shows the decode steps.
  SteadyState st = FindSteadyState(trace);
  ASSERT_FALSE(st.stages.empty());
  EXPECT_EQ(st.stages.back().label, "20 x step");
}

TEST(Stages, OneGraphReplayOfAPolicyModelHasItsParts) {
  // One graph replay: a ViT (6 layers of 5 kernels), an LLM prefill (8 layers of 6), then 10
  // diffusion steps of 26 kernels, each holding 4 layers of 6. Nothing on the host separates
  // them: the diffusion steps are passes because each holds layers of its own.
  Builder b;
  std::vector<std::string> names;
  for (int l = 0; l < 6; ++l)
    for (int k = 0; k < 5; ++k) names.push_back(Name("vit", k));
  for (int l = 0; l < 8; ++l)
    for (int k = 0; k < 6; ++k) names.push_back(Name("llm", k));
  for (int s = 0; s < 10; ++s)
    for (const std::string& k : Pass("dit", 4, 6)) names.push_back(k);
  b.Api("hipGraphLaunch", 0, 20 * us, 7);
  int64_t g = 50 * us;
  for (const std::string& k : names) {
    b.Kernel(k, g, 9 * us, 7);
    g += 10 * us;
  }
  const model::Trace& trace = b.Link();
  std::vector<Stage> stages = FindStages(trace, INT64_MIN, INT64_MAX, 3);
  std::vector<std::string> labels;
  for (const Stage& s : stages) labels.push_back(s.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"6 x layer", "8 x layer", "10 x pass"}));
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].kind, StageKind::kLayers);
  EXPECT_EQ(stages[2].kind, StageKind::kPasses);
  EXPECT_EQ(stages[2].kernels, 26u);
  EXPECT_EQ(stages[2].start_ns, (50 + 78 * 10) * us);
}

TEST(Stages, StepMarkersComeBeforeASyncOnMoreBoundaries) {
  // Three ProfilerSteps of a 52-kernel block, the first with 2 kernels more at its start (its
  // markers fall at kernels 1, 55 and 107), and an .item() once per block at kernel 46, 98 and
  // 150: the sync holds more boundaries, but aligning on it leaves two whole blocks. The steps
  // are the markers' (an AMP training loop read as "3 x layer").
  Builder b;
  const int64_t at0 = 0;
  for (int i = 0; i < 159; ++i) {
    const int64_t at = at0 + i * 10 * us;
    if (i == 1 || i == 55 || i == 107) {
      const int step = i == 1 ? 0 : i == 55 ? 1 : 2;
      const int64_t end = i == 107 ? at0 + 159 * 10 * us : at0 + (i == 1 ? 55 : 107) * 10 * us;
      b.Step(step, at - 2 * us, end - (at - 2 * us) - 3 * us);
    }
    if (i % 52 == 46) b.Api("cudaStreamSynchronize", at - 4 * us, 2 * us, 0);
    b.Launch(Name("k", i % 52), at, 1 * us, at + 2 * us, 5 * us);
  }
  const model::Trace& trace = b.Link();
  auto [lo, hi] = trace.TimeSpan();
  std::vector<Stage> stages = FindStages(trace, lo, hi + 1, 3);
  std::vector<std::string> labels;
  for (const Stage& st : stages) labels.push_back(st.label);
  ASSERT_EQ(labels, (std::vector<std::string>{"prefix", "3 x step"}));
  EXPECT_EQ(stages[1].separator, "a step marker");
}

TEST(Stages, AnOptimizersPerParameterUpdatesAreUpdatesNotLayers) {
  // A forward of 12 distinct kernels, then Adagrad without foreach inside Optimizer.step: the
  // same 4 kernels (addcmul_, sqrt, add_, addcdiv_) for each of 10 parameters (DLRM's).
  Builder b;
  int64_t at = 0;
  for (int k = 0; k < 12; ++k, at += 20 * us)
    b.Launch(Name("fwd", k), at, 5 * us, at + 8 * us, 9 * us);
  const int64_t opt = at;
  for (int p = 0; p < 10; ++p)
    for (const char* op : {"aten::addcmul_", "aten::sqrt", "aten::add_", "aten::addcdiv_"}) {
      b.Op(op, at, 12 * us);
      b.Launch(std::string(op) + "_kernel", at + 2 * us, 5 * us, at + 8 * us, 4 * us);
      at += 20 * us;
    }
  b.Annotation("Optimizer.step#Adagrad.step", opt - 1 * us, at - opt);
  const model::Trace& trace = b.Link();
  std::vector<Stage> stages = FindStages(trace, 0, at, 3);
  std::vector<std::string> labels;
  for (const Stage& st : stages) labels.push_back(st.label);
  ASSERT_EQ(labels, (std::vector<std::string>{"prefix", "10 x update"}));
  EXPECT_EQ(stages[1].kind, StageKind::kUpdates);
}

// Ten blocks of 8 kernels, each ending in a cudaStreamSynchronize (an .item() per block), in one
// call of `frame` when it is not empty.
model::Trace& BlocksEachAfterASync(Builder& b, const std::string& frame) {
  int64_t at = 10 * us;
  for (int block = 0; block < 10; ++block) {
    for (int k = 0; k < 8; ++k, at += 20 * us)
      b.Launch(Name("blk", k), at, 5 * us, at + 8 * us, 9 * us);
    b.Api("cudaStreamSynchronize", at, 30 * us, 0);
    at += 40 * us;
  }
  if (!frame.empty()) b.Frame(frame, 0, at + 10 * us);
  return b.Link();
}

TEST(Stages, SyncedBlocksInsideOneForwardAreLayersNotSteps) {
  // A Switch Transformer's forward (one call of model.py(343): forward) whose ten blocks each
  // end in a sync: its layers, not ten steps ("9 x step, each after a synchronization").
  Builder b;
  std::vector<Stage> stages = FindStages(
      BlocksEachAfterASync(b, "switch_transformers/model.py(343): forward"), 0, 10'000 * us, 3);
  bool layers = false;
  for (const Stage& st : stages) {
    EXPECT_NE(st.kind, StageKind::kSteps) << st.label;
    if (st.kind == StageKind::kLayers) {
      layers = true;
      EXPECT_EQ(st.separator, "a synchronization");
      EXPECT_EQ(st.repeats, 10u);  // no block cut off at the first sync
      EXPECT_EQ(st.kernels, 8u);
    }
  }
  EXPECT_TRUE(layers);
  // The same blocks called from a script's loop (no forward around them) are steps.
  Builder loop;
  std::vector<Stage> steps = FindStages(BlocksEachAfterASync(loop, ""), 0, 10'000 * us, 3);
  bool any_steps = false;
  for (const Stage& st : steps) any_steps |= st.kind == StageKind::kSteps;
  EXPECT_TRUE(any_steps);
}

TEST(Stages, MarkedStepsStartAtTheirMarkerNotTheirFirstKernel) {
  // Three ProfilerSteps of 50 ms that each wait 40 ms for the data loader before their 20 kernels
  // (an AMP MLP on a T4), and two kernels of the step before the trace launched before the first
  // marker: the steps take 50 ms each; no 40 ms "prefix that runs once".
  Builder b;
  b.Launch("tail_k0", 0, 5 * us, 50 * us, 30 * us);
  b.Launch("tail_k1", 10 * us, 5 * us, 90 * us, 30 * us);
  for (int s = 0; s < 3; ++s) {
    const int64_t t0 = 20 * us + s * 50'000 * us;
    b.Step(s, t0, 50'000 * us);
    for (int k = 0; k < 20; ++k) {
      const int64_t at = t0 + 40'000 * us + k * 100 * us;
      b.Launch(Name("k", k), at, 5 * us, at + 10 * us, 80 * us);
    }
  }
  const model::Trace& trace = b.Link();
  std::vector<Stage> stages = FindStages(trace, 20 * us, 150'020 * us, 3);
  ASSERT_EQ(stages.size(), 1u) << stages[0].label;
  EXPECT_EQ(stages[0].label, "3 x step");
  EXPECT_EQ(stages[0].start_ns, 20 * us);
  EXPECT_EQ(stages[0].dur_ns, 150'000 * us);
}

TEST(Stages, MarkedStepsWhoseKernelsDifferAreStillSteps) {
  // Four ProfilerSteps whose kernels differ from step to step (an activation-checkpointed
  // resnet's recomputation varies; no block of names repeats at one period): the markers' steps,
  // not "3 x layer" inside them.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    const int64_t t0 = s * 10'000 * us;
    b.Step(s, t0, 10'000 * us);
    std::string step = "s";
    step += std::to_string(s);
    for (int k = 0; k < 30 + 5 * s; ++k) {
      const int64_t at = t0 + 100 * us + k * 200 * us;
      b.Launch(Name(step, k), at, 5 * us, at + 10 * us, 150 * us);
    }
  }
  std::vector<Stage> stages = FindStages(b.Link(), 0, 40'000 * us, 3);
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].label, "4 x step");
  EXPECT_EQ(stages[0].separator, "a step marker");
  EXPECT_EQ(stages[0].kernels, 40u);  // the median step's
  EXPECT_EQ(stages[0].dur_ns, 40'000 * us);
}

TEST(Stages, NothingRepeatsIsOneStage) {
  Builder b;
  for (int k = 0; k < 20; ++k)
    b.Launch(Name("k", k), k * 20 * us, 5 * us, k * 20 * us + 6 * us, 10 * us);
  std::vector<Stage> stages = FindStages(b.Link(), 0, 1000 * us, 3);
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].kind, StageKind::kOnce);
  EXPECT_EQ(stages[0].kernels, 20u);
  EXPECT_EQ(stages[0].dur_ns, 1000 * us);
}

}  // namespace
}  // namespace stages_test
}  // namespace gpuscope::analysis
