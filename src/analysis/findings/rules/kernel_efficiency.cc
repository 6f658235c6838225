// kernel-efficiency: hot ops whose kernels run far below what the device can do for their work
// (the roofline, analysis/roofline/roofline.h).

#include <algorithm>
#include <map>

#include "analysis/findings/rules/rule_checks.h"
#include "analysis/roofline/roofline.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace kernel_efficiency_rule {
namespace {

// Findings listed at most (the op signatures with the largest savings).
constexpr size_t kMaxFindings = 5;
// No kernel gets faster than kKernelFixedCostNs (roofline.h): tiny kernels are launch-bound's,
// not ours.

// What usually closes the gap, per work-model family.
std::string AdviceFor(const std::string& family) {
  if (family == "gemm" || family == "grouped gemm" || family == "fused moe") {
    return "Tune the GEMM: PyTorch TunableOp (PYTORCH_TUNABLEOP_ENABLED=1) or hipBLASLt / "
           "cuBLASLt tuning for these shapes; pad M, N, K to multiples of the tile (64/128); fp8 "
           "(torch._scaled_mm) where the model's accuracy allows; for MoE, a tuned fused-MoE "
           "config for this batch size.";
  }
  if (family == "attention") {
    return "Use a flash-attention kernel (SDPA's flash / efficient backends; aiter or CK on "
           "ROCm, FlashAttention-3 on Hopper); check that the inputs are contiguous and the "
           "head dimension is supported.";
  }
  if (family == "convolution") {
    return "channels_last memory format, cudnn.benchmark / MIOpen find mode, bf16 instead of "
           "fp32.";
  }
  return "Memory-bound and below the HBM roof: fuse it with its neighbours (torch.compile) so "
         "the data is read once, and avoid dtype round trips and extra copies.";
}

// The op signatures below the attainable fraction of their roof with the largest savings, each
// with its kernels' new durations (claim-free: made before the rule's turn where a second core
// is free). Only what the findings need is kept, not the roofline of every kernel.
struct Roofs {
  const DevicePeaks* peaks = nullptr;  // null: unknown, so there is no roof
  struct Kernel {
    size_t row;
    int64_t target;  // its new duration
    double ideal_ns;
  };
  struct Signature {
    RooflineOp op;
    std::vector<Kernel> kernels;
  };
  std::vector<Signature> top;  // the kMaxFindings largest savings, largest first
};

Roofs MakeRoofs(const Context& c) {
  const Trace& t = c.t();
  RooflineOptions ro;
  ro.device = c.o().device;
  ro.window_start = c.steady().start_ns, ro.window_end = c.steady().end_ns;
  Roofs out;
  // Without the device's peaks there is no roof: the per-kernel roofline is not built.
  if (!PickRooflineDevice(t, ro).peaks) return out;
  RooflineReport r = ComputeRoofline(t, ro, &c.graphs());
  out.peaks = r.device.peaks;
  const double fraction = c.o().attainable_fraction;
  // Per op signature: the kernels' new durations at the attainable fraction of the roof.
  struct Fix {
    std::vector<Roofs::Kernel> kernels;
    int64_t saving = 0;
  };
  std::map<int32_t, Fix> fixes;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    int32_t op = r.kernel_op[i];
    if (op < 0) continue;
    const RooflineOp& o = r.ops[static_cast<size_t>(op)];
    if (o.percent_of_bound >= 100 * fraction) continue;
    int64_t target =
        std::max(kKernelFixedCostNs, static_cast<int64_t>(r.kernel_ideal_ns[i] / fraction));
    if (target >= t.kernels.dur_ns[i]) continue;
    Fix& f = fixes[op];
    f.kernels.push_back({i, target, r.kernel_ideal_ns[i]});
    f.saving += t.kernels.dur_ns[i] - target;
  }
  std::vector<std::pair<int64_t, int32_t>> ranked;  // (saving, op), largest first
  for (const auto& [op, f] : fixes) ranked.emplace_back(f.saving, op);
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t n = 0; n < ranked.size() && n < kMaxFindings; ++n)
    out.top.push_back({std::move(r.ops[static_cast<size_t>(ranked[n].second)]),
                       std::move(fixes[ranked[n].second].kernels)});
  return out;
}

void Prepare(const Context& c) { c.Prepared(MakeRoofs); }

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const Roofs& roofs = c.Prepared(MakeRoofs);
  if (!roofs.peaks) return;
  const double fraction = c.o().attainable_fraction;
  const DevicePeaks& peaks = *roofs.peaks;
  for (const Roofs::Signature& sig : roofs.top) {
    const RooflineOp& o = sig.op;
    Candidate cand{Make(c, "kernel-efficiency", 0), {}};
    int64_t before = 0, after = 0;
    for (const auto& [k, target, ideal_ns] : sig.kernels) {
      if (!claims.TakeKernel(k)) continue;  // an outlier instance: already at the median
      cand.fix.kernel_dur.emplace_back(k, target);
      before += t.kernels.dur_ns[k], after += target;
      AddEvidence(
          c, cand.finding, t.kernels.start_ns[k], t.kernels.dur_ns[k],
          base::FormatFixed(
              100.0 * ideal_ns / static_cast<double>(std::max<int64_t>(1, t.kernels.dur_ns[k])),
              1) +
              "% of the " + o.bound + " roof");
    }
    if (cand.fix.kernel_dur.empty()) continue;
    cand.fix.what = "its kernels run at " + base::FormatFixed(100 * fraction, 0) +
                    "% of the device's roof for their FLOPs and bytes";
    Finding& f = cand.finding;
    f.where = c.at().Kernel(cand.fix.kernel_dur.front().first);
    f.where.op = o.op;
    f.where.kernel = o.kernels.empty() ? "" : base::Demangle(o.kernels.front().name);
    std::string rate = o.bound == "compute" ? base::FormatFixed(o.tflops, 1) + " TFLOP/s"
                                            : base::FormatFixed(o.tbps, 2) + " TB/s";
    f.detail = o.op + " (" + o.shape + ", " + o.dtype + "): " + base::FormatCount(o.calls) +
               (o.calls == 1 ? " call, " : " calls, ") + base::FormatDuration(before) +
               " of kernels at " + base::FormatFixed(o.percent_of_bound, 1) + "% of the " +
               o.bound + " roof (" + rate + " on " + std::string(peaks.name) + "); at " +
               base::FormatFixed(100 * fraction, 0) + "% they would take " +
               base::FormatDuration(after);
    f.advice = AdviceFor(o.family);
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace kernel_efficiency_rule

const RuleInfo& KernelEfficiencyRule() {
  static const RuleInfo rule{
      .id = "kernel-efficiency",
      .title = "Kernels far below the device's roof for their work",
      .definition =
          "Op signatures (op, shapes, type; `gpuscope roofline`) whose kernels in the steady state "
          "reach less than the attainable share of their roof: max(FLOPs / peak FLOP/s, bytes / "
          "peak HBM bandwidth) from the op's recorded shapes and the device's data-sheet peaks. "
          "Needs shapes (record_shapes=True) and a known device (--device). The 5 with the largest "
          "savings.",
      .impact =
          "replayed: each kernel of the op takes its roof time / the attainable share, at least 2 "
          "us (a kernel's fixed cost) and never longer than it took.",
      .advice =
          "Depends on the op: a tuned GEMM library and tile-friendly shapes, flash attention, "
          "fusion for memory-bound ops.",
      .options = {{"--attainable-percent",
                   "kernel-efficiency: share of the roof a tuned kernel reaches", 60,
                   [](AnalyzeOptions& o, double v) { o.attainable_fraction = v / 100; }}},
      .detect = &kernel_efficiency_rule::Detect,
      .prepare = &kernel_efficiency_rule::Prepare,
      .runtime_advice =
          "Depends on the kernel: a tuned library (cuBLASLt, CUTLASS) and tile-friendly shapes for "
          "matrix work, fused kernels for memory-bound work.",
      .limits =
          "traces without recorded shapes or with an unknown device; ops with no work model "
          "(gpuscope roofline lists the modelled families); signatures at or above the attainable "
          "share."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
