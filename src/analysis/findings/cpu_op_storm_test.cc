// cpu-op-storm on hand-built models: a Python loop over elements (with or without stacks) is
// found; model code, annotated model phases, custom autograd Functions, an optimizer and
// model.to() are not (issues 30, 50).

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace cpu_op_storm_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::Rule;
using test_models::us;

TEST(Analyze, CpuOpStormFromAPythonLoopWithoutGpu) {
  Builder b;
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 10000 * us;
    b.Step(s, t0, 10000 * us);
    b.Frame("infer.py(12): slow_activation", t0 + 100 * us, 8000 * us);
    for (int k = 0; k < 400; ++k)
      b.Op(k % 2 ? "aten::select" : "aten::gt", t0 + 100 * us + k * 20 * us, 15 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  EXPECT_EQ(r.summary.gpu_busy_pct, -1);
  auto f = Rule(r, "cpu-op-storm");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.python, "infer.py(12): slow_activation");
  // Vectorised, each call's loop (its ops from the first's start to the last's end, 7,995 us)
  // takes one op's 15 us; nothing else waits on the host's time.
  EXPECT_NEAR(static_cast<double>(f[0]->impact_ns), 3 * (7995 - 15) * us, 1000);
  EXPECT_NE(f[0]->detail.find("400.0 per iteration"), std::string::npos) << f[0]->detail;

  Builder few;
  for (int s = 0; s < 3; ++s) {
    few.Step(s, s * 1000 * us, 1000 * us);
    for (int k = 0; k < 5; ++k) few.Op("aten::mul", s * 1000 * us + k * 50 * us, 15 * us);
  }
  EXPECT_TRUE(Rule(Analyze(few.Link()), "cpu-op-storm").empty());
}

TEST(Analyze, CpuOpStormFindsALoopInATraceWithoutPythonStacks) {
  // No frame or range around the loop's ops (recorded without with_stack): 100 tiny ops of two
  // names one every 20 us between the step's other work, each step.
  auto loop = [](Builder& b, bool launches, int names, int64_t period) {
    for (int s = 0; s < 3; ++s) {
      int64_t t0 = s * 10000 * us;
      b.Step(s, t0, 10000 * us);
      b.Op("aten::linear", t0 + 5000 * us, 400 * us);  // model work after the loop
      for (int k = 0; k < 100; ++k) {
        const int64_t at = t0 + 100 * us + k * period;
        b.Op("aten::op" + std::to_string(k % names), at, 15 * us);
        if (launches) b.Launch("tiny", at + 2 * us, 5 * us, at + 10 * us, 2 * us);
      }
    }
  };
  Builder b;
  loop(b, false, 2, 20 * us);
  const AnalysisReport r = Analyze(b.Link());  // the findings Rule points into
  auto f = Rule(r, "cpu-op-storm");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.python, "");
  EXPECT_EQ(f[0]->where.op, "aten::op1");
  // Vectorised, each 1,995 us run takes one op's 15 us.
  EXPECT_NEAR(static_cast<double>(f[0]->impact_ns), 3 * (1995 - 15) * us, 1000);
  // Not a loop of this kind: each op launching a kernel (launch-bound's), ops of many names
  // (a model's forward), ops far apart.
  Builder gpu, model, apart;
  loop(gpu, true, 2, 20 * us);
  loop(model, false, 8, 20 * us);
  loop(apart, false, 2, 60 * us);
  for (Builder* x : {&gpu, &model, &apart})
    EXPECT_TRUE(Rule(Analyze(x->Link()), "cpu-op-storm").empty());
}

TEST(Analyze, CpuOpStormNeverNamesModelCode) {
  // The same flood of tiny ops as a Python loop's (a place of 5 ms in a 10 ms step), issued by
  // model code: a module's forward, a
  // compiled region, an autograd node, an optimizer's foreach path (issue 30).
  for (const char* place :
       {"model.py(40): forward", "DistributedDataParallel.forward", "## forward:over_arch ##",
        "CompiledFunction", "autograd::engine::evaluate_function: MulBackward0"}) {
    Builder b;
    bool frame = std::string_view(place).find(".py(") != std::string_view::npos;
    for (int s = 0; s < 3; ++s) {
      int64_t t0 = s * 10000 * us;
      b.Step(s, t0, 10000 * us);
      if (frame)
        b.Frame(place, t0 + 100 * us, 5000 * us);
      else
        b.Op(place, t0 + 100 * us, 5000 * us);
      for (int k = 0; k < 200; ++k)
        b.Op(k % 2 ? "aten::linear" : "aten::relu", t0 + 110 * us + k * 24 * us, 15 * us);
    }
    EXPECT_TRUE(Rule(Analyze(b.Link()), "cpu-op-storm").empty()) << place;
  }
  Builder foreach_step, loop_step;
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 10000 * us;
    for (Builder* b : {&foreach_step, &loop_step}) {
      b->Step(s, t0, 10000 * us);
      b->Op("Optimizer.step#AdamW.step", t0 + 100 * us, 5000 * us);
    }
    for (int k = 0; k < 200; ++k) {
      foreach_step.Op("aten::_foreach_add_", t0 + 110 * us + k * 24 * us, 15 * us);
      loop_step.Op("aten::add_", t0 + 110 * us + k * 24 * us, 15 * us);
    }
  }
  EXPECT_TRUE(Rule(Analyze(foreach_step.Link()), "cpu-op-storm").empty());
  // An optimizer's per-parameter loop is a loop over tensors, not elements (issue 50): a foreach
  // or fused optimizer is its fix, not vectorising.
  EXPECT_TRUE(Rule(Analyze(loop_step.Link()), "cpu-op-storm").empty());
}

// A step of a trace recorded without stacks whose ops sit in user ranges: `calls` ranges named
// `range` per step, each holding `per_call` tiny ops cycling through `names` op names, each
// launching a tiny kernel when `launches`.
std::unique_ptr<Builder> RangedOps(const std::string& range, int calls, int per_call, int names,
                                   bool launches, const std::string& op = "aten::op") {
  auto b = std::make_unique<Builder>();
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 20000 * us;
    b->Step(s, t0, 20000 * us);
    for (int c = 0; c < calls; ++c) {
      int64_t c0 = t0 + 100 * us + c * (per_call * 20 + 100) * us;
      b->Annotation(range, c0, per_call * 20 * us + 50 * us);
      for (int k = 0; k < per_call; ++k) {
        const int64_t at = c0 + 10 * us + k * 20 * us;
        b->Op(names == 1 ? op : op + std::to_string(k % names), at, 15 * us);
        if (launches) b->Launch("tiny", at + 2 * us, 5 * us, at + 10 * us, 2 * us);
      }
    }
  }
  return b;
}

TEST(Analyze, CpuOpStormNeverNamesAnnotatedModelPhasesOrAnOptimizer) {
  // Issue 50 (DeepSeek-V3's train.json, recorded without stacks): an annotated model phase
  // (attn(F): 60 ops of many names per call), a phase calling few ops per call (combine(B): 4
  // calls of 32), a custom autograd Function's range (DropoutAddLayerNormFn: 32 calls of 7), the
  // optimizer's zero_grad (an aten::zero_ launching a fill per parameter) and step (on the CPU:
  // an add_ per parameter, no launch), and model.to()'s frame: none is a loop over elements.
  struct Case {
    const char* range;
    int calls, per_call, names;
    bool launches;
  };
  for (const Case& k :
       {Case{"attn(F)", 4, 60, 12, false}, Case{"combine(B)", 4, 32, 4, false},
        Case{"DropoutAddLayerNormFn", 32, 7, 3, false},
        Case{"Optimizer.zero_grad#SGD.zero_grad", 1, 160, 1, true},
        Case{"Optimizer.step#SGD.step", 1, 300, 2, false}, Case{"mlp(B)", 1, 120, 2, true}}) {
    auto b = RangedOps(k.range, k.calls, k.per_call, k.names, k.launches);
    EXPECT_TRUE(Rule(Analyze(b->Link()), "cpu-op-storm").empty()) << k.range;
  }
  // dispatch(F) of an all-to-all: 4 calls of 55 aten::record_stream (one per buffer), no
  // launch: bookkeeping, not a loop over elements.
  auto dispatch = RangedOps("dispatch(F)", 4, 55, 1, false, "aten::record_stream");
  EXPECT_TRUE(Rule(Analyze(dispatch->Link()), "cpu-op-storm").empty());
  Builder to;
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 10000 * us;
    to.Step(s, t0, 10000 * us);
    to.Frame("torch/nn/modules/module.py(1160): convert", t0 + 100 * us, 5000 * us);
    for (int k = 0; k < 200; ++k) to.Op("aten::to", t0 + 110 * us + k * 24 * us, 15 * us);
  }
  EXPECT_TRUE(Rule(Analyze(to.Link()), "cpu-op-storm").empty());
  // A user range around a real loop (two op names, 100 a call, no GPU work) still is one.
  auto loop = RangedOps("postprocess", 1, 100, 2, false);
  const AnalysisReport r = Analyze(loop->Link());
  auto f = Rule(r, "cpu-op-storm");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.op, "postprocess");
}

}  // namespace
}  // namespace cpu_op_storm_test
}  // namespace gpuscope::analysis
