// diff: name normalisation, the rank test, and matching of two hand-built runs.

#include "analysis/diff/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "analysis/common/test_model_builder.h"
#include "analysis/diff/comparability.h"
#include "model/linker.h"

namespace gpuscope::analysis {
namespace {

TEST(NormalizeKernelName, FoldsTemplatesParametersReturnTypesAndGeneratedSuffixes) {
  EXPECT_EQ(NormalizeKernelName(
                "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                "at::detail::Array<char*, 1>>(int, at::native::FillFunctor<float>, "
                "at::detail::Array<char*, 1>)"),
            "at::native::vectorized_elementwise_kernel<>");
  // The name as the tables show it: without "void ", "(anonymous namespace)" kept.
  EXPECT_EQ(NormalizeKernelName("void implicit_convolve_sgemm<float, float, 128>(int, float*)"),
            "implicit_convolve_sgemm<>");
  EXPECT_EQ(NormalizeKernelName("void at::native::(anonymous namespace)::max_pool_backward_nchw<"
                                "float, float>(float const*, int)"),
            "at::native::(anonymous namespace)::max_pool_backward_nchw<>");
  EXPECT_EQ(NormalizeKernelName("triton_poi_fused_add_mul_3"), "triton_poi_fused_add_mul");
  EXPECT_EQ(NormalizeKernelName("triton_poi_fused_add_mul_12"), "triton_poi_fused_add_mul");
  EXPECT_EQ(NormalizeKernelName("gemm_kernel_1a2b3c4d5e6f7a8b"), "gemm_kernel");
  EXPECT_EQ(NormalizeKernelName("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(NormalizeKernelName("Cijk_Ailk_Bljk_SB_MT128x64x16"), "Cijk_Ailk_Bljk_SB_MT128x64x16");
}

TEST(MannWhitney, SeparatedSamplesAreSignificantEqualOnesAreNot) {
  std::vector<int64_t> a, b, c;
  for (int i = 0; i < 10; ++i) a.push_back(1000 + i), b.push_back(2000 + i), c.push_back(1000 + i);
  // U = 0 for 10 vs 10: z = (50 - 0.5) / sqrt(175) = 3.742, two-sided p = 1.83e-4.
  EXPECT_NEAR(MannWhitneyP(a, b), 1.83e-4, 0.02e-4);
  EXPECT_GT(MannWhitneyP(a, c), 0.9);
  std::vector<int64_t> same(8, 5);
  EXPECT_EQ(MannWhitneyP(same, same), 1);  // all ties: no evidence of a change
}

// `steps` ProfilerSteps of the kernels in order; `module`: the model's nn.Module frame around
// them (PyTorch's with_modules).
model::Trace MakeRun(int steps, int64_t step_ns,
                     const std::vector<std::pair<std::string, int64_t>>& kernels,
                     const std::string& module = "") {
  model::Trace t;
  auto cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  if (!module.empty()) {
    model::PythonFrameRow f;
    f.start_ns = 0, f.dur_ns = steps * step_ns, f.track = cpu;
    f.name = t.strings.Intern("nn.Module: " + module + "_0");
    t.python.Append(f);
  }
  auto gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  for (int s = 0; s < steps; ++s) {
    int64_t t0 = s * step_ns;
    model::CpuRangeRow step;
    step.start_ns = t0, step.dur_ns = step_ns,
    step.name = t.strings.Intern("ProfilerStep#" + std::to_string(s));
    step.track = cpu, step.kind = model::CpuRangeKind::kAnnotation;
    t.cpu.Append(step);
    int64_t at = t0;
    for (const auto& [name, dur] : kernels) {
      model::KernelRow k;
      k.start_ns = at, k.dur_ns = dur, k.name = t.strings.Intern(name), k.track = gpu, k.device = 0;
      t.kernels.Append(k);
      at += dur;
    }
  }
  model::LinkTrace(t);
  return t;
}

TEST(Diff, MatchesRecompiledKernelsAndReportsAddedAndRemoved) {
  model::Trace before =
      MakeRun(6, 1000000, {{"triton_poi_fused_relu_0", 100000}, {"elementwise_loop", 50000}});
  model::Trace after =
      MakeRun(6, 800000, {{"triton_poi_fused_relu_7", 100000}, {"where_kernel", 10000}});
  DiffReport r = Diff(before, after);
  EXPECT_EQ(r.verdict, "faster");
  EXPECT_LT(r.p_value, 0.05);
  std::map<std::string, std::string> status;
  for (const auto& k : r.kernels) status[k.name] = k.status;
  EXPECT_EQ(status["triton_poi_fused_relu"], "same");
  EXPECT_EQ(status["elementwise_loop"], "removed");
  EXPECT_EQ(status["where_kernel"], "added");
  for (const auto& k : r.kernels) {
    if (k.name == "elementwise_loop") {
      EXPECT_EQ(k.calls_per_iteration_before, 1.0);
    }
  }
  DiffOptions exact;
  exact.exact_names = true;
  DiffReport e = Diff(before, after, exact);
  EXPECT_EQ(e.kernels.size(), 4u);  // relu_0 and relu_7 no longer match
}

TEST(Diff, WithoutIterationsComparesKernelTime) {
  model::Trace a = MakeRun(0, 0, {});
  model::Trace b = MakeRun(0, 0, {});
  model::KernelRow k;
  k.dur_ns = 1000, k.name = a.strings.Intern("k");
  a.kernels.Append(k);
  k.dur_ns = 2000, k.name = b.strings.Intern("k");
  b.kernels.Append(k);
  model::LinkTrace(a);
  model::LinkTrace(b);
  DiffReport r = Diff(a, b);
  EXPECT_EQ(r.verdict, "slower");
  EXPECT_NE(r.basis.find("total GPU kernel time"), std::string::npos);
}

// A window of kernels without steps: `calls` attention calls of `attn_ns`, each followed by
// 0.5 ms of other work.
model::Trace Window(int calls, int64_t attn_ns, const char* other = "layer_norm") {
  model::Trace t;
  auto gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  int64_t at = 0;
  for (int c = 0; c < calls; ++c) {
    for (auto [name, dur] :
         {std::pair<const char*, int64_t>{"attention_fwd", attn_ns}, {other, 500'000}}) {
      model::KernelRow k;
      k.start_ns = at, k.dur_ns = dur, k.name = t.strings.Intern(name), k.track = gpu;
      t.kernels.Append(k);
      at += dur + 20'000;
    }
  }
  model::LinkTrace(t);
  return t;
}

TEST(Diff, WithoutIterationsKernelTimeIsComparedPerUnitOfWork) {
  // Two windows of one run (issue 30): 34 attention calls of 4.00 ms, then 30 of 4.01 ms. The
  // kernel total drops 12% (less work in the window), per attention call it grows 0.2%.
  DiffReport r = Diff(Window(34, 4'000'000), Window(30, 4'010'000));
  EXPECT_EQ(r.verdict, "no significant change") << r.basis;
  EXPECT_NE(r.basis.find("per call of attention_fwd (34 vs 30 calls"), std::string::npos)
      << r.basis;
  EXPECT_NEAR(r.change_percent, 0.22, 0.05);
  // Slower per call is slower, whatever the totals say.
  DiffReport slow = Diff(Window(34, 4'000'000), Window(30, 4'800'000));
  EXPECT_EQ(slow.verdict, "slower");
  // The same number of calls: totals, as before.
  DiffReport same = Diff(Window(30, 4'000'000), Window(30, 3'000'000));
  EXPECT_EQ(same.verdict, "faster");
  EXPECT_NE(same.basis.find("total GPU kernel time"), std::string::npos) << same.basis;
  // Nothing shared: not comparable, no change claimed.
  model::Trace a = Window(10, 1'000'000, "a_only"), b = Window(10, 1'000'000, "b_only");
  for (auto& n : b.kernels.name) n = b.strings.Intern("b_only");
  DiffReport none = Diff(a, b);
  EXPECT_EQ(none.verdict, "not comparable") << none.basis;
  EXPECT_FALSE(none.significant);
}

// A loop of 12 kernels per iteration without step markers, each iteration `iter_ns` long, with
// a little noise (every third iteration 2% longer) as real runs have.
model::Trace UnmarkedLoop(int iterations, int64_t iter_ns) {
  model::Trace t;
  auto gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  for (int i = 0; i < iterations; ++i) {
    int64_t slot = (i % 3 == 0 ? iter_ns * 102 / 100 : iter_ns) / 12;
    int64_t at = i == 0 ? 0 : t.kernels.start_ns.back() + slot;
    for (int k = 0; k < 12; ++k) {
      model::KernelRow row;
      row.start_ns = at + k * slot, row.dur_ns = slot * 9 / 10, row.track = gpu;
      row.name = t.strings.Intern("layer_" + std::to_string(k));
      t.kernels.Append(row);
    }
  }
  model::LinkTrace(t);
  return t;
}

TEST(Diff, WithoutStepsTheIterationPeriodComesFromTheKernelsRepeats) {
  // Issue 51: a 2-GPU window whose iteration went 17.53 -> 18.62 ms was "no significant change"
  // (kernel time per call of its dominant kernel moved under 5%).
  DiffReport r = Diff(UnmarkedLoop(16, 17'530'000), UnmarkedLoop(15, 18'620'000));
  EXPECT_EQ(r.verdict, "slower") << r.basis << "; " << r.test;
  EXPECT_EQ(r.period_kernels_before, 12u);
  EXPECT_NE(r.basis.find("iteration period from kernel repeats"), std::string::npos) << r.basis;
  EXPECT_NEAR(r.iteration_median_ns.before, 17'530'000, 100'000);
  EXPECT_NEAR(r.iteration_median_ns.after, 18'620'000, 100'000);
  EXPECT_TRUE(r.significant);
  DiffReport same = Diff(UnmarkedLoop(16, 17'530'000), UnmarkedLoop(15, 17'530'000));
  EXPECT_EQ(same.verdict, "no significant change") << same.test;
}

TEST(Diff, RunsThatShareLittleKernelTimeAreNotComparable) {
  // 80% of the after run's kernel time is in kernels the before run never ran.
  model::Trace before = MakeRun(6, 1'000'000, {{"gemm", 400'000}, {"softmax", 100'000}});
  model::Trace after = MakeRun(6, 2'000'000, {{"gemm", 200'000}, {"conv3d_kernel", 800'000}});
  DiffReport r = Diff(before, after);
  EXPECT_EQ(r.verdict, "not comparable") << r.basis;
  EXPECT_NE(r.not_comparable_reason.find("share little work"), std::string::npos)
      << r.not_comparable_reason;
  EXPECT_FALSE(r.significant);
  // The same program, slower: comparable.
  EXPECT_EQ(Diff(before, MakeRun(6, 2'000'000, {{"gemm", 800'000}, {"softmax", 100'000}})).verdict,
            "slower");
}

TEST(Diff, RunsOfDifferentModelsAreNotComparable) {
  auto with_model = [](const char* module) {
    return MakeRun(6, 1'000'000, {{"gemm", 400'000}, {"softmax", 100'000}}, module);
  };
  DiffReport r = Diff(with_model("BertModel"), with_model("TimesformerModel"));
  EXPECT_EQ(r.verdict, "not comparable");
  EXPECT_EQ(r.not_comparable_reason, "they ran different models (BertModel vs TimesformerModel)");
  EXPECT_EQ(Diff(with_model("BertModel"), with_model("BertModel")).verdict,
            "no significant change");
}

// GPU-bound steps: an input copy of `copy_ns` (0: none) from pinned memory, a GEMM queued behind
// it on the same stream, then a synchronize; the next step starts when it returns.
model::Trace& CopyThenGemm(test_models::Builder& b, int64_t copy_ns) {
  using test_models::us;
  int64_t t0 = 0;
  for (int s = 0; s < 6; ++s) {
    b.Op("aten::copy_", t0 + 5 * us, 10 * us);
    if (copy_ns > 0)
      b.Copy(model::MemopKind::kHtoD, "cudaMemcpyAsync", t0 + 6 * us, 5 * us, t0 + 12 * us, copy_ns,
             1 << 20, model::MemoryKind::kPinned);
    const int64_t gemm = std::max(t0 + 14 * us + copy_ns, t0 + 26 * us);
    b.Launch("gemm", t0 + 20 * us, 4 * us, gemm, 500 * us);
    b.Api("cudaDeviceSynchronize", t0 + 30 * us, gemm + 505 * us - (t0 + 30 * us), 0);
    const int64_t end = gemm + 510 * us;
    b.Step(s, t0, end - t0);
    t0 = end;
  }
  return b.Link();
}

TEST(Diff, AFindingPricedUnderTheThresholdIsStillPresentNotResolved) {
  // Issue 56: memcpy-in-loop "resolved" while the copies were still there, each saving less.
  test_models::Builder before, after, before2, gone;
  DiffReport r = Diff(CopyThenGemm(before, 300 * test_models::us), CopyThenGemm(after, 300));
  auto status = [](const DiffReport& d) {
    for (const auto& f : d.findings)
      if (f.rule == "memcpy-in-loop") return f.status;
    return std::string("none");
  };
  ASSERT_FALSE(r.after.under_threshold.empty());
  EXPECT_EQ(status(r), kStillPresent);
  EXPECT_EQ(status(Diff(CopyThenGemm(before2, 300 * test_models::us), CopyThenGemm(gone, 0))),
            kResolved);
}

TEST(Diff, ACostThatMovedIntoWarmupIsNotResolved) {
  // The after run: an op that ran in every step before now runs only in its warm-up step.
  model::Trace t = MakeRun(4, 1'000'000, {{"gemm", 400'000}});
  auto cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  model::CpuRangeRow op;
  op.start_ns = 100'000, op.dur_ns = 50'000, op.track = cpu, op.kind = model::CpuRangeKind::kOp;
  op.name = t.strings.Intern("aten::copy_");
  t.cpu.Append(op);
  Where copy, mm;
  copy.op = "aten::copy_", mm.op = "aten::mm";
  SteadyState s;
  for (int i = 0; i < 4; ++i) s.iterations.push_back({i, i * 1'000'000, 1'000'000});
  s.warmup = 1, s.start_ns = 1'000'000, s.end_ns = 4'000'000;
  EXPECT_TRUE(OnlyInWarmup(t, s, copy));
  EXPECT_FALSE(OnlyInWarmup(t, s, mm));  // not in the run at all: resolved
  op.start_ns = 2'100'000;               // once in the steady steps too: persisting, not moved
  t.cpu.Append(op);
  EXPECT_FALSE(OnlyInWarmup(t, s, copy));
  s.warmup = 0;
  EXPECT_FALSE(OnlyInWarmup(t, s, copy));
}

}  // namespace
}  // namespace gpuscope::analysis

namespace gpuscope::analysis {
namespace {

// Growth by category: the fused kernels grew by 6 x 150 us; the kernels behind it are named.
TEST(Diff, GrowthByCategoryWithTheKernelsBehindIt) {
  model::Trace before = MakeRun(6, 1000000,
                                {{"triton_poi_fused_relu_0", 100000},
                                 {"ampere_sgemm_128x64_nn", 300000},
                                 {"triton_red_fused_sum_1", 50000}});
  model::Trace after = MakeRun(6, 1000000,
                               {{"triton_poi_fused_relu_3", 200000},
                                {"ampere_sgemm_128x64_nn", 300000},
                                {"triton_red_fused_sum_4", 100000}});
  DiffReport r = Diff(before, after);
  ASSERT_EQ(r.categories.size(), 2u);  // only categories with time
  EXPECT_EQ(r.categories[0].category, KernelCategory::kFused);
  // Two fused kernels per steady step, 150 us more per step.
  const auto steps = static_cast<int64_t>(r.categories[0].calls_after / 2);
  EXPECT_GE(steps, 4);
  EXPECT_EQ(r.categories[0].calls_before, r.categories[0].calls_after);
  EXPECT_EQ(r.categories[0].delta(), steps * 150000);
  ASSERT_EQ(r.categories[0].top.size(), 2u);
  EXPECT_EQ(r.categories[0].top[0].name, "triton_poi_fused_relu");
  EXPECT_EQ(r.categories[0].top[0].delta(), steps * 100000);
  EXPECT_EQ(r.categories[1].category, KernelCategory::kGemm);
  EXPECT_EQ(r.categories[1].delta(), 0);
}

// A kernel whose name no rule knows is a convolution where aten::cudnn_convolution launches it;
// its first call, launched outside any op, must not make the whole name 'other' in diff (it did:
// the key took its first instance's category), as stats counts it by each instance.
TEST(Diff, AKernelNameTakesTheCategoryOfMostOfItsTime) {
  constexpr int64_t us = 1000;
  auto run = [&](int64_t conv_us) {
    auto b = std::make_unique<test_models::Builder>();
    b->Launch("volta_s884_tile_128x64_nn_v1", 0, 5 * us, 10 * us, 20 * us);  // no op
    for (int s = 0; s < 6; ++s) {
      const int64_t t0 = 1000 * us + s * 1000 * us;
      b->Step(s, t0, 1000 * us);
      b->Op("aten::cudnn_convolution", t0 + 10 * us, 100 * us);
      b->Launch("volta_s884_tile_128x64_nn_v1", t0 + 20 * us, 10 * us, t0 + 40 * us, conv_us * us);
    }
    b->Link();
    return b;
  };
  auto before = run(300), after = run(400);
  DiffReport r = Diff(before->raw(), after->raw());
  ASSERT_FALSE(r.categories.empty());
  EXPECT_EQ(r.categories[0].category, KernelCategory::kConv);
  for (const auto& c : r.categories) EXPECT_NE(c.category, KernelCategory::kOther);
}

}  // namespace
}  // namespace gpuscope::analysis
