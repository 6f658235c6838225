// analyze on hand-built models, the copy and kernel rules (each fires on its planted problem with
// the planted cost and stays silent on the healthy variant), the registry, the verdict and
// phases.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"
#include "analysis/findings/registry.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace copy_kernel_rules_test {  // this file's helpers, apart in a unity build
namespace {

using model::MemopKind;
using model::MemoryKind;

using test_models::Builder;
using test_models::Healthy;
using test_models::Rule;
using test_models::us;

TEST(Analyze, EveryVerdictKindHasItsWord) {
  for (VerdictKind k : {VerdictKind::kGpuBound, VerdictKind::kCpuBound, VerdictKind::kMixed,
                        VerdictKind::kCopyBound, VerdictKind::kCpuOnly, VerdictKind::kNoGpuWork,
                        VerdictKind::kCopiesOnly, VerdictKind::kNoHostEvent,
                        VerdictKind::kIncompleteTrace, VerdictKind::kOnePass})
    EXPECT_FALSE(VerdictKindName(k).empty());
  EXPECT_EQ(VerdictKindName(VerdictKind::kGpuBound), "GPU-bound");
}

TEST(Analyze, CopyRulesFireOnPageableSyncSmallCopiesAndStaySilentOnPinnedAsync) {
  Builder b;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Copy(MemopKind::kHtoD, "cudaMemcpy", t0, 210 * us, t0 + 5 * us, 200 * us, 8 << 20,
           MemoryKind::kPageable);
    for (int k = 0; k < 10; ++k) {
      b.Copy(MemopKind::kHtoD, "cudaMemcpyAsync", t0 + 300 * us + k * 20 * us, 10 * us,
             t0 + 300 * us + k * 20 * us + 5 * us, 3 * us, 1024, MemoryKind::kPinned);
    }
    b.Launch("gemm", t0 + 520 * us, 5 * us, t0 + 530 * us, 400 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  // One root cause per event: the blocking pageable cudaMemcpy is memcpy-sync's (its pageable
  // speed included), the small pinned copies are small-memcpy's; nothing is left for
  // memcpy-pageable or memcpy-in-loop.
  ASSERT_EQ(Rule(r, "memcpy-sync").size(), 1u);
  EXPECT_TRUE(Rule(r, "memcpy-pageable").empty());
  EXPECT_TRUE(Rule(r, "memcpy-in-loop").empty());
  ASSERT_EQ(Rule(r, "small-memcpy").size(), 1u);
  // Host-bound steps: the host stops waiting 205 us per step in cudaMemcpy (its 5 us before the
  // copy and 5 us after stay) and saves 9 of the 10 small copy calls of 10 us.
  EXPECT_NEAR(static_cast<double>(Rule(r, "memcpy-sync")[0]->standalone_ns), 4 * 200 * us,
              4 * 5 * us);
  EXPECT_EQ(Rule(r, "small-memcpy")[0]->standalone_ns, 4 * 9 * 10 * us);
  int64_t sum = 0;
  for (const auto& f : r.findings) sum += f.impact_ns;
  EXPECT_LE(sum, r.summary.combined_saving_ns);

  Builder then_sync;  // an async pinned copy followed by a stream synchronize blocks the host too
  then_sync.Step(0, 0, 1000 * us);
  then_sync.Copy(MemopKind::kDtoH, "cudaMemcpyAsync", 0, 5 * us, 5 * us, 50 * us, 1 << 20,
                 MemoryKind::kPinned);
  then_sync.Api("cudaStreamSynchronize", 6 * us, 60 * us, 0);
  AnalysisReport ts_report = Analyze(then_sync.Link());
  // The synchronize is host-sync's root cause; the async copy before it is not blocking.
  auto ts = Rule(ts_report, "host-sync");
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_TRUE(Rule(ts_report, "memcpy-sync").empty());

  Builder pinned;  // one pinned async copy per step, overlapped
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    pinned.Step(s, t0, 1000 * us);
    pinned.Copy(MemopKind::kHtoD, "cudaMemcpyAsync", t0, 5 * us, t0 + 5 * us, 20 * us, 1 << 20,
                MemoryKind::kPinned);
  }
  AnalysisReport p = Analyze(pinned.Link());
  EXPECT_TRUE(Rule(p, "memcpy-sync").empty());
  EXPECT_TRUE(Rule(p, "memcpy-pageable").empty());
  EXPECT_TRUE(Rule(p, "small-memcpy").empty());

  Builder rocm;  // host side not recorded: no pageable finding, summary says unknown
  rocm.Step(0, 0, 1000 * us);
  rocm.Copy(MemopKind::kHtoD, "hipMemcpyAsync", 0, 5 * us, 5 * us, 200 * us, 1 << 20,
            MemoryKind::kHost);
  AnalysisReport q = Analyze(rocm.Link());
  EXPECT_TRUE(Rule(q, "memcpy-pageable").empty());
  EXPECT_NE(q.summary.host_pinning.find("unknown"), std::string::npos);
}

TEST(Analyze, KernelOutlierIsRobustToNormalSpread) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.Kernel("conv", i * 200 * us, (100 + i % 3) * us);
  b.Kernel("conv", 20 * 200 * us, 500 * us);
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "kernel-outlier");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->impact_ns, 399 * us);  // 500 - median 101
  EXPECT_EQ(f[0]->evidence.size(), 1u);

  Builder even;
  for (int i = 0; i < 20; ++i) even.Kernel("conv", i * 200 * us, (100 + i % 5) * us);
  EXPECT_TRUE(Rule(Analyze(even.Link()), "kernel-outlier").empty());
}

TEST(Analyze, KernelOutlierWithoutACallSiteNeedsRareOutliers) {
  // No launch records (issue 30): 41 instances of 100 us and 10 of 300 us are two GEMM shapes,
  // not 10 outliers; 2 slow of 42 are outliers.
  Builder two;
  for (int i = 0; i < 51; ++i) two.Kernel("gemm", i * 1000 * us, (i % 5 == 4 ? 300 : 100) * us);
  EXPECT_TRUE(Rule(Analyze(two.Link()), "kernel-outlier").empty());
  Builder rare;
  for (int i = 0; i < 42; ++i)
    rare.Kernel("gemm", i * 1000 * us, (i == 7 || i == 30 ? 300 : 100) * us);
  EXPECT_EQ(Rule(Analyze(rare.Link()), "kernel-outlier").size(), 1u);
}

TEST(Analyze, KernelOutlierNeverComparesAPrefillStepsKernelWithADecodeSteps) {
  // A server's steps in blocks of 2 prefill and 8 decode (vLLM execute annotations), one
  // aten::mm each launching "gemm": 400 us in prefill (longer inputs, shapes not recorded),
  // 100 us in decode. The prefill instances are another population, not outliers; a decode
  // instance made 6x slower still is one (listed whatever it saves: the host bounds this run).
  auto build = [](bool slow_decode) {
    auto b = std::make_unique<Builder>();
    const std::string prefill =
        "execute_1_context_1(sq512sk512sqsq262144sqsk262144)_generation_0(sq0sk0sqsq0sqsk0)";
    const std::string decode =
        "execute_1_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk800sqsq8sqsk800)";
    for (int i = 0; i < 40; ++i) {
      const bool pre = i % 10 < 2;
      const int64_t t0 = i * 1000 * us;
      b->Annotation(pre ? prefill : decode, t0, 1000 * us);
      b->Op("aten::mm", t0 + 10 * us, 50 * us);
      int64_t dur = (pre ? 400 : 100 + i % 3) * us;
      if (slow_decode && i == 25) dur = 600 * us;
      b->Launch("gemm", t0 + 20 * us, 10 * us, t0 + 40 * us, dur);
    }
    return b;
  };
  AnalyzeOptions all;
  all.min_impact_percent = 0;
  auto served = build(false);
  const model::Trace& linked = served->Link();
  AnalysisReport r = Analyze(linked, all);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_TRUE(Rule(r, "kernel-outlier").empty());
  // --phase decode: the window spans the prefill steps between; their kernels stay apart too.
  AnalyzeOptions decode = all;
  decode.steady.phase = "decode";
  EXPECT_TRUE(Rule(Analyze(linked, decode), "kernel-outlier").empty());
  auto slow = build(true);
  AnalysisReport slow_report = Analyze(slow->Link(), all);
  auto f = Rule(slow_report, "kernel-outlier");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->evidence.size(), 1u);
}

TEST(Analyze, KernelOutlierComparesOnlyCallsWithTheSameShapes) {
  // One kernel from one op: 10 calls on small inputs (100 us), 2 on large ones (600 us). Without
  // shapes the large calls are outliers; with them they are their own (too small) group.
  auto build = [](bool with_shapes) {
    auto b = std::make_unique<Builder>();
    for (int i = 0; i < 12; ++i) {
      bool large = i % 6 == 5;
      std::string dims = large ? "[[4096, 4096], [4096, 4096]]" : "[[1024, 4096], [4096, 4096]]";
      std::string args = with_shapes ? model::EncodeOpArgs(dims, R"(["float", "float"])", "") : "";
      int64_t t0 = i * 1000 * us;
      b->Op("aten::mm", t0, 50 * us, args);
      b->Launch("gemm", t0 + 10 * us, 10 * us, t0 + 30 * us, (large ? 600 : 100 + i % 3) * us);
    }
    return b;
  };
  auto plain = build(false);
  EXPECT_EQ(Rule(Analyze(plain->Link()), "kernel-outlier").size(), 1u);
  auto shaped = build(true);
  EXPECT_TRUE(Rule(Analyze(shaped->Link()), "kernel-outlier").empty());
}

TEST(Analyze, KernelEfficiencyPricesGemmsAtTheAttainableShareOfTheRoof) {
  // Five bf16 GEMMs 4096^3 back to back on an MI300X, 500 us each: at the roof (1307.4 TFLOP/s)
  // one takes 2 x 4096^3 / 1307.4e3 = 105.1 us, at the default 60% 175.2 us. GPU-bound, so the
  // fix saves 5 x (500 - 175.2) us.
  auto build = [](const char* device) {
    auto b = std::make_unique<Builder>();
    model::Device d;
    d.id = 0, d.name = device, d.vendor = model::Vendor::kAmd, d.compute_units = 304;
    b->raw().devices.push_back(d);
    std::string mm = model::EncodeOpArgs("[[4096, 4096], [4096, 4096]]",
                                         R"(["c10::BFloat16", "c10::BFloat16"])", "");
    b->Step(1, 0, 2800 * us);
    for (int i = 0; i < 5; ++i) {
      b->Op("aten::mm", i * 20 * us, 15 * us, mm);
      b->Launch("gemm", i * 20 * us + 2 * us, 10 * us, 200 * us + i * 500 * us, 500 * us);
    }
    b->Api("hipDeviceSynchronize", 100 * us, 2605 * us, 0);  // the step waits for its GPU work
    return b;
  };
  auto mi300x = build("AMD Instinct MI300X");
  AnalysisReport r = Analyze(mi300x->Link());
  auto f = Rule(r, "kernel-efficiency");
  ASSERT_EQ(f.size(), 1u);
  double ideal = 2.0 * 4096 * 4096 * 4096 / 1307.4e3;
  double saving = 5 * (500 * us - std::floor(ideal / 0.6));
  EXPECT_NEAR(static_cast<double>(f[0]->standalone_ns), saving, 10);
  EXPECT_EQ(f[0]->where.op, "aten::mm");
  EXPECT_NE(f[0]->detail.find("of the compute roof"), std::string::npos) << f[0]->detail;
  // A device gpuscope does not know: no roof, no finding.
  auto unknown = build("Some Future GPU");
  unknown->raw().devices[0].compute_units = 7;
  EXPECT_TRUE(Rule(Analyze(unknown->Link()), "kernel-efficiency").empty());
}

TEST(Analyze, LowUtilizationSplitsIdleByCause) {
  Builder b;
  for (int s = 0; s < 3; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Launch("k", t0 + 800 * us, 5 * us, t0 + 810 * us, 100 * us);
    b.Op("python_work", t0, 800 * us);
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "low-utilization");
  ASSERT_EQ(f.size(), 1u);
  // A summary without a fix to price is information (issue 56: unpriced "[high]").
  EXPECT_EQ(f[0]->severity, Severity::kInfo);
  EXPECT_NE(r.summary.verdict.find("CPU-bound"), std::string::npos);
  EXPECT_EQ(r.summary.verdict_kind, VerdictKind::kCpuBound);
  EXPECT_NEAR(r.summary.gpu_busy_pct, 10.0, 0.01);
}

// One pass of one-off kernels with untraced host work between them (an nvFuser benchmark: each
// fusion runs once after its set-up): no steady state, so not CPU-bound and gpu-idle not priced.
// The same run with a kernel launched 3 times is a loop's: CPU-bound, gpu-idle priced.
TEST(Analyze, OnePassOfOneOffKernelsIsNoSteadyState) {
  auto run = [](bool repeat) {
    Builder b;
    for (int k = 0; k < 6; ++k) {
      int64_t t0 = k * 1000 * us;
      std::string name = repeat && k % 2 == 0 ? "loop_kernel" : "fusion_" + std::to_string(k);
      b.Launch(name, t0 + 800 * us, 5 * us, t0 + 810 * us, 100 * us);
    }
    return Analyze(b.Link());
  };
  AnalysisReport once = run(false);
  EXPECT_EQ(once.summary.verdict_kind, VerdictKind::kOnePass) << once.summary.verdict;
  EXPECT_EQ(once.summary.verdict.rfind("one pass: no steps and no kernel ran 3 times (6 kernels "
                                       "of 6 names)",
                                       0),
            0u)
      << once.summary.verdict;
  auto idle = Rule(once, "gpu-idle");
  ASSERT_FALSE(idle.empty());
  for (const auto* f : idle) {
    EXPECT_EQ(f->impact_ns, 0);
    EXPECT_EQ(f->severity, Severity::kInfo);
    EXPECT_EQ(f->detail.rfind("not priced: one pass", 0), 0u) << f->detail;
  }
  for (const auto* f : Rule(once, "low-utilization")) EXPECT_EQ(f->severity, Severity::kInfo);
  AnalysisReport loop = run(true);
  EXPECT_EQ(loop.summary.verdict_kind, VerdictKind::kCpuBound) << loop.summary.verdict;
  auto priced = Rule(loop, "gpu-idle");
  ASSERT_FALSE(priced.empty());
  EXPECT_GT(priced[0]->impact_ns, 0);
}

TEST(Rules, EveryRuleIsDocumentedOnce) {
  std::set<std::string_view> ids;
  for (const auto& r : Rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.definition.empty() || r.impact.empty() || r.advice.empty()) << r.id;
    EXPECT_FALSE(r.limits.empty()) << r.id << ": say what it never fires on";
    EXPECT_NE(r.detect, nullptr) << r.id;
    for (const auto& o : r.options) {
      EXPECT_EQ(o.flag.rfind("--", 0), 0u) << r.id;
      EXPECT_NE(o.apply, nullptr) << o.flag;
    }
  }
  for (const char* id : {"gpu-idle", "launch-bound", "cpu-op-storm", "host-sync", "data-loading",
                         "memcpy-in-loop", "memcpy-sync", "memcpy-pageable", "small-memcpy",
                         "kernel-outlier", "kernel-efficiency", "kernel-hotspot", "low-utilization",
                         "warm-up", "comm-wait", "allocator", "device-copy", "fusion"}) {
    EXPECT_NE(FindRule(id), nullptr) << id;
  }
  // The defaults come from the entries: one place.
  AnalyzeOptions o;
  EXPECT_EQ(o.idle_gap_ns, 20'000);
  EXPECT_EQ(o.small_copy_bytes, 64 << 10);
  EXPECT_EQ(FindRule("gpu-idle")->Defaults(), "--idle-gap-us 20");
  EXPECT_EQ(FindRule("host-sync")->Defaults(), "always on");
}

TEST(Analyze, VerdictNeedsKernelsToSayGpuBound) {
  // A window whose only GPU work is one 1.5 us memset: busy, but not GPU-bound.
  Builder b;
  b.Step(0, 0, 10 * us);
  b.Copy(MemopKind::kMemset, "cudaMemsetAsync", 1 * us, 1 * us, 2 * us, 1500, 64,
         MemoryKind::kDevice);
  AnalysisReport r = Analyze(b.Link());
  EXPECT_EQ(r.summary.verdict.find("GPU-bound"), std::string::npos) << r.summary.verdict;
}

TEST(Analyze, VerdictSaysWhatTheGpuDidAndWhatTheTraceCannotTell) {
  // Copies hold 95% of the GPU's busy time (issue 30): copy-bound, naming the kind, count, bytes.
  Builder copies;
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = s * 1000 * us;
    copies.Step(s, t0, 1000 * us);
    copies.Copy(MemopKind::kHtoD, "cudaMemcpyAsync", t0 + 10 * us, 5 * us, t0 + 20 * us, 900 * us,
                64 << 20, MemoryKind::kPinned);
    copies.Launch("add_kernel", t0 + 30 * us, 5 * us, t0 + 930 * us, 47 * us);
  }
  AnalysisReport r = Analyze(copies.Link());
  EXPECT_EQ(r.summary.verdict.rfind("copy-bound", 0), 0u) << r.summary.verdict;
  EXPECT_EQ(r.summary.verdict_kind, VerdictKind::kCopyBound);
  EXPECT_NE(r.summary.verdict.find("HtoD copies (4, 268.4 MB)"), std::string::npos)
      << r.summary.verdict;

  // GPU work with no host event at all: the idle share, and that its cause is unknown.
  Builder gpu_only;
  for (int k = 0; k < 20; ++k) gpu_only.Kernel("nccl_allreduce", k * 100 * us, 30 * us);
  r = Analyze(gpu_only.Link());
  EXPECT_NE(r.summary.verdict.find("no host event is recorded"), std::string::npos)
      << r.summary.verdict;
  EXPECT_EQ(r.summary.verdict_kind, VerdictKind::kNoHostEvent);
  EXPECT_EQ(r.summary.verdict.find("CPU-bound"), std::string::npos);

  // An Nsight Systems export without CUDA activity: not "CPU only".
  Builder nvtx_only;
  nvtx_only.Annotation("train_step", 0, 1000 * us);
  nvtx_only.raw().meta.format = "nsys";
  r = Analyze(nvtx_only.Link());
  EXPECT_NE(r.summary.verdict.find("the CUDA trace was not collected"), std::string::npos)
      << r.summary.verdict;
  EXPECT_EQ(r.summary.verdict_kind, VerdictKind::kNoGpuWork);
}

TEST(Analyze, EachPhaseIsPricedInItsOwnSteps) {
  // Interleaved as a server runs them: a prefill step, then 3 decode steps that each wait for
  // their kernel in a stream sync before the next step's host work, 4 times over. The sync is a
  // decode problem, not a prefill one, though each phase's steps span the whole trace.
  Builder b;
  int64_t t = 0;
  for (int block = 0; block < 4; ++block) {
    b.Annotation("execute_512_context_1(sq512sk512)_generation_0(sq0sk0)", t, 3000 * us);
    b.Launch("prefill_gemm", t + 10 * us, 5 * us, t + 20 * us, 2900 * us);
    t += 3000 * us;
    for (int s = 0; s < 3; ++s) {
      b.Annotation("execute_1_context_0(sq0sk0)_generation_1(sq1sk513)", t, 1000 * us);
      b.Launch("decode_gemm", t + 10 * us, 5 * us, t + 20 * us, 400 * us);
      b.Api("cudaStreamSynchronize", t + 20 * us, 402 * us, 0);
      b.Op("host_work", t + 430 * us, 500 * us);
      t += 1000 * us;
    }
  }
  const model::Trace& linked = b.Link();
  AnalysisReport r = Analyze(linked);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[1].name, "decode");
  auto impact = [](const PhaseSummary& p, const char* rule) {
    int64_t ns = 0;
    for (const auto& f : p.findings) ns += f.rule == rule ? f.impact_ns : 0;
    return ns;
  };
  const Finding* sync = nullptr;
  for (const auto& f : r.findings) sync = f.rule == "host-sync" ? &f : sync;
  ASSERT_NE(sync, nullptr);
  EXPECT_GT(impact(r.phases[1], "host-sync"), 0);
  EXPECT_EQ(impact(r.phases[0], "host-sync"), 0);
  // The steps tile the window: what the fix saves in the phases adds up to what it saves.
  EXPECT_EQ(impact(r.phases[0], "host-sync") + impact(r.phases[1], "host-sync"), sync->impact_ns);
  // On one thread the same findings, to the nanosecond.
  AnalyzeOptions one_thread;
  one_thread.threads = 1;
  AnalysisReport r1 = Analyze(linked, one_thread);
  ASSERT_EQ(r1.phases.size(), r.phases.size());
  for (size_t p = 0; p < r.phases.size(); ++p) {
    ASSERT_EQ(r1.phases[p].findings.size(), r.phases[p].findings.size()) << p;
    for (size_t i = 0; i < r.phases[p].findings.size(); ++i) {
      EXPECT_EQ(r1.phases[p].findings[i].rule, r.phases[p].findings[i].rule);
      EXPECT_EQ(r1.phases[p].findings[i].impact_ns, r.phases[p].findings[i].impact_ns);
    }
  }
}

}  // namespace
}  // namespace copy_kernel_rules_test
}  // namespace gpuscope::analysis
