// Steps, phases, warm-up and structure on hand-built models: each step source, each phase rule.

#include "analysis/steady_state.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/phase_summary.h"
#include "analysis/step_sources.h"
#include "analysis/test_model_builder.h"

namespace gpuscope::analysis {
namespace {

using test_models::Builder;
using test_models::us;

// `blocks` repeats of a 3-kernel layer launched from [t0, t0 + 30 us * blocks).
void Layers(Builder& b, int64_t t0, int blocks) {
  for (int l = 0; l < blocks; ++l) {
    int64_t t = t0 + l * 30 * us;
    b.Launch("qkv", t, 5 * us, t + 6 * us, 5 * us);
    b.Launch("attn", t + 10 * us, 5 * us, t + 16 * us, 5 * us);
    b.Launch("mlp", t + 20 * us, 5 * us, t + 26 * us, 5 * us);
  }
}

TEST(SteadyState, ProfilerStepsWithSlowWarmup) {
  Builder b;
  b.Step(1, 0, 5000 * us);  // first step: allocations, autotuning
  for (int s = 2; s <= 6; ++s) b.Step(s, 5000 * us + (s - 2) * 1000 * us, 1000 * us + s * us);
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "ProfilerStep markers");
  EXPECT_EQ(st.iterations.size(), 6u);
  EXPECT_EQ(st.warmup, 1u);
  EXPECT_EQ(st.start_ns, 5000 * us);
  EXPECT_EQ(st.latency.median_ns, 1004 * us);
  EXPECT_EQ(st.latency.max_ns, 1006 * us);
  EXPECT_TRUE(st.phases.empty());
}

TEST(SteadyState, OneServingStepIsOneWindowWithLayersAsStructure) {
  // One vLLM decode step holding 36 layers: one step, nothing warm-up, the layers are structure.
  Builder b;
  b.Annotation("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)",
               0, 36 * 30 * us);
  Layers(b, 5 * us, 36);
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "serving steps (vllm execute annotations)");
  ASSERT_EQ(st.iterations.size(), 1u);
  EXPECT_EQ(st.warmup, 0u);
  EXPECT_EQ(st.structure.block, 3u);
  EXPECT_EQ(st.structure.repeats, 36u);
  EXPECT_EQ(st.structure.text(), "36 repeats of a 3-kernel block");
  ASSERT_EQ(st.phases.size(), 1u);
  EXPECT_EQ(st.phases[0].name, "decode");
  EXPECT_EQ(st.phases[0].tokens_per_step, 32);
  // The window runs past the annotation to the end of the GPU work the step launched.
  EXPECT_EQ(st.end_ns, 5 * us + 35 * 30 * us + 31 * us);
}

TEST(SteadyState, SglangStepsNestedInExecuteAnnotationsAndTheOuterWins) {
  Builder b;
  b.Annotation("execute_32_context_0(sq0sk0)_generation_32(sq32sk100)", 0, 200 * us);
  b.Launch("pre", 2 * us, 3 * us, 6 * us, 2 * us);  // before the inner step
  b.Annotation("step[DECODE bs=32]", 10 * us, 180 * us);
  Layers(b, 12 * us, 5);
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "serving steps (vllm execute annotations)");
  EXPECT_EQ(st.iterations[0].start_ns, 0);
  ASSERT_EQ(st.phases.size(), 1u);
  EXPECT_EQ(st.phases[0].name, "decode");

  Builder only;
  only.Annotation("step[EXTEND bs=4 tokens=2048]", 0, 200 * us);
  Layers(only, 2 * us, 5);
  SteadyState so = FindSteadyState(only.Link());
  EXPECT_EQ(so.source, "serving steps (sglang step annotations)");
  ASSERT_EQ(so.phases.size(), 1u);
  EXPECT_EQ(so.phases[0].name, "prefill");
  EXPECT_EQ(so.phases[0].tokens_per_step, 2048);
}

TEST(SteadyState, WarmupIsDecidedWithinAPhaseNeverAcrossPhases) {
  // A long prefill step, then decode steps of which the first is slow (warm-up of decode).
  Builder b;
  b.Annotation("execute_512_context_1(sq512sk512)_generation_0(sq0sk0)", 0, 5000 * us);
  b.Launch("prefill_gemm", 10 * us, 5 * us, 20 * us, 4000 * us);
  int64_t t = 5000 * us;
  for (int s = 0; s < 6; ++s) {
    int64_t dur = s == 0 ? 3000 * us : 1000 * us + s * us;
    b.Annotation("execute_1_context_0(sq0sk0)_generation_1(sq1sk513)", t, dur);
    b.Launch("decode_gemm", t + 10 * us, 5 * us, t + 20 * us, 500 * us);
    t += dur;
  }
  SteadyState st = FindSteadyState(b.Link());
  ASSERT_EQ(st.phases.size(), 2u);
  EXPECT_EQ(st.phases[0].name, "prefill");
  EXPECT_EQ(st.phases[0].warmup, 0u);  // its only step: never warm-up, never compared to decode
  EXPECT_EQ(st.phases[1].name, "decode");
  EXPECT_EQ(st.phases[1].steps.size(), 6u);
  EXPECT_EQ(st.phases[1].warmup, 1u);
  EXPECT_EQ(st.phases[1].latency.median_ns, 1003 * us);
  EXPECT_EQ(st.warmup, 0u);  // the window starts at the prefill step
  EXPECT_EQ(st.start_ns, 0);
  EXPECT_TRUE(st.iterations[1].warmup);

  // One phase alone (`analyze --phase decode`): its steps, its warm-up, its window.
  SteadyStateOptions only;
  only.phase = "decode";
  SteadyState d = FindSteadyState(b.Link(), only);
  ASSERT_EQ(d.iterations.size(), 6u);
  EXPECT_EQ(d.warmup, 1u);
  EXPECT_EQ(d.start_ns, 8000 * us);  // after the slow first decode step
  EXPECT_EQ(d.latency.median_ns, 1003 * us);
  ASSERT_EQ(d.phases.size(), 1u);
  EXPECT_EQ(MissingPhaseMessage(st, "mixed"),
            "no mixed steps in this trace (phases: prefill, decode)");

  std::vector<PhaseSummary> ps = SummarisePhases(b.Link(), st);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].top_kernels.at(0).first, "prefill_gemm");
  EXPECT_EQ(ps[1].top_kernels.at(0).first, "decode_gemm");
  EXPECT_EQ(ps[1].gpu_ns, 5 * 500 * us);  // the warm-up step's kernel is left out
  EXPECT_EQ(ps[1].tokens_per_step, 1);
}

TEST(SteadyState, RepeatedAnnotationMustEncloseTheGpuWork) {
  Builder a;
  for (int s = 0; s < 4; ++s) a.Annotation("decode", s * 100 * us, 90 * us);
  EXPECT_EQ(FindSteadyState(a.Link()).source, "repeated annotation 'decode'");
  // "log" repeats but launches nothing; "iter 0..3" encloses the launches.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t = s * 200 * us;
    b.Annotation("iter " + std::to_string(s), t, 150 * us);
    b.Launch("k", t + 10 * us, 5 * us, t + 20 * us, 50 * us);
    b.Annotation("log", t + 160 * us, 30 * us);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated annotation 'iter #'");
  EXPECT_EQ(st.iterations.size(), 4u);
  // Blocks inside one enclosing annotation (compiled-graph calls inside a capture) are not steps.
  Builder c;
  c.Annotation("capture_32_FULL", 0, 1000 * us);
  for (int s = 0; s < 4; ++s) {
    c.Annotation("## Call CompiledFxGraph abc ##", 10 * us + s * 200 * us, 150 * us);
    c.Launch("k", 20 * us + s * 200 * us, 5 * us, 30 * us + s * 200 * us, 50 * us);
  }
  EXPECT_EQ(FindSteadyState(c.Link()).source.rfind("span of GPU work as one step", 0), 0u);
}

TEST(SteadyState, RepeatedPythonFrameOfAGenerateLoopWithPhasesByShape) {
  Builder b;
  b.Frame("gen.py(1): <module>", 0, 10000 * us);
  int64_t t = 10 * us;
  for (int s = 0; s < 5; ++s) {
    int64_t dur = s == 0 ? 3000 * us : 800 * us;
    b.Frame("gen.py(20): forward_step", t, dur);
    b.Frame("model.py(5): layer", t + 1 * us, 100 * us);  // deeper, repeats more: not the loop
    b.Launch("gemm", t + 2 * us, 5 * us, t + 10 * us, dur / 2);
    b.Frame("model.py(5): layer", t + 200 * us, 100 * us);
    b.Launch("gemm", t + 201 * us, 5 * us, t + 210 * us, 10 * us);
    t += dur + 10 * us;
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated Python frame 'gen.py(20): forward_step'");
  ASSERT_EQ(st.iterations.size(), 5u);
  ASSERT_EQ(st.phases.size(), 2u);
  EXPECT_EQ(st.phases[0].name, "prefill");
  EXPECT_EQ(st.phases[0].evidence, "shape of the work");
  EXPECT_EQ(st.phases[1].steps.size(), 4u);
}

TEST(SteadyState, LibraryFramesAreNeverTheLoopAndGraphLaunchesWeighByTheirKernels) {
  // A text encoder's 12 layer calls (transformers/, many small launches) and one user frame
  // per denoising step (3 steps, each one graph launch of 50 kernels): the steps are the user's.
  Builder b;
  for (int l = 0; l < 12; ++l) {
    b.Frame("transformers/modeling_layers.py(59): __call__", l * 100 * us, 90 * us);
    b.Launch("enc", l * 100 * us + 10 * us, 5 * us, l * 100 * us + 20 * us, 10 * us);
  }
  for (int s = 0; s < 3; ++s) {
    int64_t t = 2000 * us + s * 1000 * us;
    b.Frame("pipe.py(88): denoise_step", t, 900 * us);
    b.Api("hipGraphLaunch", t + 10 * us, 20 * us, 100 + s);
    for (int k = 0; k < 50; ++k) b.Kernel("dit", t + 40 * us + k * 15 * us, 10 * us, 100 + s);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated Python frame 'pipe.py(88): denoise_step'");
  EXPECT_EQ(st.iterations.size(), 3u);
}

TEST(SteadyState, KernelPeriodIsStructureNeverIterations) {
  Builder k;
  for (int s = 0; s < 5; ++s) {
    k.Kernel("a", s * 100 * us, 10 * us);
    k.Kernel("b", s * 100 * us + 20 * us, 10 * us);
    k.Kernel("c", s * 100 * us + 40 * us, 10 * us);
  }
  SteadyState ks = FindSteadyState(k.Link());
  EXPECT_TRUE(ks.iterations.empty());
  EXPECT_EQ(ks.source.rfind("span of GPU work as one step", 0), 0u);
  EXPECT_EQ(ks.structure.text(), "5 repeats of a 3-kernel block");
  EXPECT_EQ(ks.start_ns, 0);
  EXPECT_EQ(ks.end_ns, 450 * us);
  Builder n;
  n.Op("aten::add", 0, 10 * us);
  EXPECT_EQ(FindSteadyState(n.Link()).source.rfind("whole trace as one step", 0), 0u);
}

TEST(StepSources, ServingLabels) {
  auto v = internal::ParseServingLabel("execute_40_context_2(sq32sk32)_generation_8(sq8sk900)");
  EXPECT_EQ(v.phase, "mixed");
  EXPECT_EQ(v.tokens, 40);
  EXPECT_EQ(internal::ParseServingLabel("execute_8_context_0(x)_generation_0(y)").phase, "");
  EXPECT_EQ(internal::ParseServingLabel("step[MIXED bs=3]").phase, "mixed");
  EXPECT_EQ(internal::ParseServingLabel("step[PREFILL bs=3]").tokens, -1);
  EXPECT_FALSE(internal::ParseServingLabel("ProfilerStep#3").serving);
  EXPECT_FALSE(internal::ParseServingLabel("step 3").serving);
}

}  // namespace
}  // namespace gpuscope::analysis
