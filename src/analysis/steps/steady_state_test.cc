// Steps, phases, warm-up and structure on hand-built models: each step source, each phase rule.

#include "analysis/steps/steady_state.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/steps/phase_summary.h"
#include "analysis/steps/step_sources.h"

namespace gpuscope::analysis {
namespace steady_state_test {  // this file's helpers, apart in a unity build
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
  // The execute_ labels are SGLang's here (its step[...] annotations say which server it is).
  EXPECT_EQ(st.source, "serving steps (sglang execute annotations)");
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
  EXPECT_EQ(FindSteadyState(a.Link()).source,
            "repeated annotation 'decode'; a step runs to the next one's start");
  // "log" repeats but launches nothing; "iter 0..3" encloses the launches.
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t = s * 200 * us;
    b.Annotation("iter " + std::to_string(s), t, 150 * us);
    b.Launch("k", t + 10 * us, 5 * us, t + 20 * us, 50 * us);
    b.Annotation("log", t + 160 * us, 30 * us);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated annotation 'iter #'; a step runs to the next one's start");
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
  EXPECT_EQ(
      st.source,
      "repeated Python frame 'gen.py(20): forward_step'; a step runs to the next one's start");
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
  EXPECT_EQ(
      st.source,
      "repeated Python frame 'pipe.py(88): denoise_step'; a step runs to the next one's start");
  EXPECT_EQ(st.iterations.size(), 3u);
}

TEST(SteadyState, RepeatedPythonFrameOfACpuOnlyRunIsTheLoopThatHoldsTheOpTime) {
  // A CPU-only run (no GPU launch at all): 20 calls of infer_step at module level, each running
  // ops; before them 20 calls of make_batch (as shallow, little op time) and the model's set-up;
  // inside each step a deeper user frame that repeats as often. The steps are infer_step's.
  Builder b;
  b.Frame("prog.py(1): <module>", 0, 30000 * us);
  b.Op("aten::uniform_", 10 * us, 2000 * us);  // the model's set-up
  for (int s = 0; s < 20; ++s) {
    b.Frame("prog.py(3): make_batch", 2100 * us + s * 20 * us, 15 * us);
    b.Op("aten::randn", 2101 * us + s * 20 * us, 10 * us);
  }
  for (int s = 0; s < 20; ++s) {
    int64_t t = 3000 * us + s * 1000 * us;
    b.Frame("prog.py(6): infer_step", t, 950 * us);
    b.Op("aten::linear", t + 10 * us, 400 * us);
    b.Op("aten::addmm", t + 20 * us, 380 * us);  // inside aten::linear: counted once
    b.Frame("prog.py(10): activation", t + 420 * us, 500 * us);
    b.Op("aten::relu", t + 430 * us, 480 * us);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source,
            "repeated Python frame 'prog.py(6): infer_step'; a step runs to the next one's start");
  ASSERT_EQ(st.iterations.size(), 20u);
  EXPECT_EQ(st.iterations[0].start_ns, 3000 * us);
  EXPECT_EQ(st.latency.median_ns, 1000 * us);
  // Frames that run no op, or hold less than half the ops' time, are not the loop.
  Builder few;
  few.Frame("prog.py(1): <module>", 0, 30000 * us);
  few.Op("aten::uniform_", 10 * us, 20000 * us);
  for (int s = 0; s < 5; ++s) {
    few.Frame("prog.py(6): infer_step", 21000 * us + s * 1000 * us, 950 * us);
    few.Op("aten::relu", 21010 * us + s * 1000 * us, 400 * us);
    few.Frame("prog.py(9): log", 21960 * us + s * 1000 * us, 30 * us);
  }
  EXPECT_EQ(FindSteadyState(few.Link()).source.rfind("whole trace as one step", 0), 0u);
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

// A forward pass of `layers` 3-kernel layers, as one graph replay (corr: the graph launch's) or
// launched kernel by kernel; each kernel 5 us apart.
void GraphForward(Builder& b, int64_t t0, int layers, uint64_t corr) {
  b.Api("cudaGraphLaunch", t0, 20 * us, corr);
  for (int l = 0; l < 3 * layers; ++l)
    b.Kernel(l % 3 == 0   ? "qkv"
             : l % 3 == 1 ? "attn"
                          : "mlp",
             t0 + 30 * us + l * 5 * us, 4 * us, corr);
}

TEST(SteadyState, ForwardPassesSplitByGraphLaunchesAreStepsAndTheirLayersStructure) {
  // A vLLM run without step annotations: 2 eager prefill passes, then 20 decode passes of one
  // graph replay each; the sampled token is copied back (a blocking copy) after each pass.
  // Before: one step holding "22 repeats of a 12-kernel block (layers)".
  Builder b;
  int64_t t = 0;
  for (int pass = 0; pass < 22; ++pass) {
    if (pass < 2) {
      Layers(b, t, 4);
      t += 4 * 30 * us;
    } else {
      GraphForward(b, t, 4, 10000 + pass);
      t += 100 * us;
    }
    b.Api("cudaMemcpy", t, 10 * us, 0);
    t += 50 * us;
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated kernel blocks, each after a graph launch (no steps marked)");
  ASSERT_EQ(st.iterations.size(), 22u);
  // A step runs to the next one's start: the copy and the gap after it belong to the step.
  EXPECT_EQ(st.iterations[0].start_ns, 0);
  EXPECT_EQ(st.iterations[0].dur_ns, 4 * 30 * us + 50 * us);
  EXPECT_EQ(st.iterations[5].dur_ns, 150 * us);
  EXPECT_EQ(st.structure.text(), "4 repeats of a 3-kernel block");
}

TEST(SteadyState, PassesOpenedByTheDataLoaderAreStepsNotLayers) {
  // Five training samples, each fetched from the DataLoader on the main thread then run through
  // three distinct kernels. Before: one step, "5 repeats of a 3-kernel block (layers)".
  Builder b;
  for (int s = 0; s < 5; ++s) {
    int64_t t = s * 200 * us;
    b.Op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 80 * us);
    b.Launch("conv", t + 100 * us, 5 * us, t + 106 * us, 20 * us);
    b.Launch("relu", t + 110 * us, 5 * us, t + 127 * us, 5 * us);
    b.Launch("fc", t + 120 * us, 5 * us, t + 133 * us, 10 * us);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source, "repeated kernel blocks, each after a data-loader call (no steps marked)");
  ASSERT_EQ(st.iterations.size(), 5u);
  EXPECT_EQ(st.iterations[1].start_ns, 200 * us);  // the step opens with its loader call
  EXPECT_EQ(st.iterations[1].dur_ns, 200 * us);
  EXPECT_EQ(st.iterations[4].end_ns(), 4 * 200 * us + 143 * us);  // the last kernel's end
}

TEST(SteadyState, LayersThatSynchronizeOrReplayPiecesOfAGraphStayStructure) {
  // A MoE forward whose layers each read their routing on the host (a stream synchronize), and
  // a piecewise-captured forward (a graph launch per layer, attention launched between them):
  // the pieces hold no layers of their own and are not whole graph replays, so one step.
  Builder moe;
  for (int l = 0; l < 6; ++l) {
    int64_t t = l * 100 * us;
    moe.Launch("qkv", t, 5 * us, t + 6 * us, 5 * us);
    moe.Launch("router", t + 10 * us, 5 * us, t + 16 * us, 5 * us);
    moe.Api("cudaStreamSynchronize", t + 20 * us, 10 * us, 0);
    moe.Launch("expert", t + 40 * us, 5 * us, t + 46 * us, 20 * us);
  }
  SteadyState m = FindSteadyState(moe.Link());
  EXPECT_EQ(m.source.rfind("span of GPU work as one step", 0), 0u) << m.source;
  EXPECT_EQ(m.structure.text(), "6 repeats of a 3-kernel block");
  Builder pw;
  for (int l = 0; l < 6; ++l) {
    int64_t t = l * 100 * us;
    pw.Api("cudaGraphLaunch", t, 10 * us, 500 + l);
    pw.Kernel("mlp_up", t + 12 * us, 5 * us, 500 + l);
    pw.Kernel("mlp_down", t + 18 * us, 5 * us, 500 + l);
    pw.Launch("attn", t + 30 * us, 5 * us, t + 36 * us, 20 * us);
  }
  SteadyState p = FindSteadyState(pw.Link());
  EXPECT_EQ(p.source.rfind("span of GPU work as one step", 0), 0u) << p.source;
  EXPECT_EQ(p.structure.text(), "6 repeats of a 3-kernel block");
}

TEST(SteadyState, AnnotatedStepRunsToTheNextOnesStartUnlessTheProgramWaits) {
  // vLLM execute annotations around the forward only: 16.5 ms each, the engine starting one
  // every 18.9 ms; then the server waits 200 ms for requests before the last two.
  Builder b;
  const std::string decode = "execute_8_context_0(sq0)_generation_8(sq8)";
  int64_t starts[] = {0, 18900 * us, 37800 * us, 254300 * us, 273200 * us};
  for (int64_t s : starts) {
    b.Annotation(decode, s, 16500 * us);
    b.Launch("decode_kernel", s + 100 * us, 5 * us, s + 200 * us, 10000 * us);
  }
  SteadyState st = FindSteadyState(b.Link());
  EXPECT_EQ(st.source,
            "serving steps (vllm execute annotations); a step runs to the next one's start");
  ASSERT_EQ(st.iterations.size(), 5u);
  EXPECT_EQ(st.iterations[0].dur_ns, 18900 * us);
  EXPECT_EQ(st.iterations[1].dur_ns, 18900 * us);
  EXPECT_EQ(st.iterations[2].dur_ns, 16500 * us);  // the server waited after it
  EXPECT_EQ(st.iterations[3].dur_ns, 18900 * us);
  EXPECT_EQ(st.iterations[4].dur_ns, 16500 * us);  // the last: nothing after it to run to
  EXPECT_EQ(st.latency.median_ns, 18900 * us);

  // A vLLM prefill step (issue 50): a 63 ms forward, the next engine step 91 ms after its start,
  // then decodes every 12 ms. The prefill step is the 91 ms, not the forward alone.
  Builder served;
  const std::string prefill = "execute_512_context_1(sq512)_generation_0(sq0)";
  served.Annotation(prefill, 0, 63000 * us);
  served.Launch("prefill_kernel", 100 * us, 5 * us, 200 * us, 60000 * us);
  for (int d = 0; d < 8; ++d) {
    const int64_t s = 91000 * us + d * 12000 * us;
    served.Annotation(decode, s, 10000 * us);
    served.Launch("decode_kernel", s + 100 * us, 5 * us, s + 200 * us, 9000 * us);
  }
  SteadyState sv = FindSteps(served.Link());
  ASSERT_EQ(sv.iterations.size(), 9u);
  EXPECT_EQ(sv.iterations[0].dur_ns, 91000 * us);
  EXPECT_EQ(sv.iterations[1].dur_ns, 12000 * us);
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

TEST(PhaseSummary, InterleavedStepsCountsOtherPhasesBetweenAPhasesFirstAndLastStep) {
  // Steps 0..9: prefill at 0 and 5, decode the rest.
  SteadyState s;
  s.iterations.resize(10);
  s.phases.push_back({"prefill", "annotation counts", {0, 5}, 0, {}, -1});
  s.phases.push_back({"decode", "annotation counts", {1, 2, 3, 4, 6, 7, 8, 9}, 0, {}, -1});
  EXPECT_EQ(InterleavedSteps(s, "prefill"), 4u);  // steps 1-4 run between 0 and 5
  EXPECT_EQ(InterleavedSteps(s, "decode"), 1u);   // step 5
  EXPECT_EQ(InterleavedSteps(s, "mixed"), 0u);    // no such phase
  s.phases[1].steps = {6, 7, 8, 9};               // phases in blocks: nothing between
  EXPECT_EQ(InterleavedSteps(s, "decode"), 0u);
}

}  // namespace
}  // namespace steady_state_test
}  // namespace gpuscope::analysis
