#include "analysis/findings/verdict.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

#include "base/enum_names.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// The copies of the window by kind: time, count and bytes (of those with a known size).
struct CopyKinds {
  std::array<int64_t, model::kMemopKindCount> ns{}, bytes{};
  std::array<uint64_t, model::kMemopKindCount> count{};
  int64_t total_ns = 0;
};

CopyKinds CopiesIn(const model::Trace& t, int64_t w0, int64_t w1) {
  CopyKinds c;
  for (size_t i = 0; i < t.memops.size(); ++i) {
    if (t.memops.start_ns[i] < w0 || t.memops.start_ns[i] >= w1) continue;
    auto k = static_cast<size_t>(t.memops.kind[i]);
    c.ns[k] += t.memops.dur_ns[i];
    c.bytes[k] += t.memops.bytes[i] > 0 ? t.memops.bytes[i] : 0;
    ++c.count[k];
    c.total_ns += t.memops.dur_ns[i];
  }
  return c;
}

constexpr std::string_view kVerdictNames[] = {
    "GPU-bound",   "CPU-bound",     "mixed",
    "copy-bound",  "CPU only",      "no GPU work recorded",
    "copies only", "no host event", "incomplete trace",
    "one pass"};
static_assert(base::NamesEvery(kVerdictNames, VerdictKind::kOnePass));

// The kernels starting in [w0, w1): how many, of how many names, the most calls of one name.
struct KernelRepeats {
  size_t calls = 0, names = 0, most = 0;
};

KernelRepeats RepeatsIn(const model::Trace& t, int64_t w0, int64_t w1) {
  KernelRepeats r;
  std::unordered_map<model::StringId, size_t> by_name;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (t.kernels.start_ns[i] < w0 || t.kernels.start_ns[i] >= w1) continue;
    ++r.calls;
    r.most = std::max(r.most, ++by_name[t.kernels.name[i]]);
  }
  r.names = by_name.size();
  return r;
}
}  // namespace

std::string_view VerdictKindName(VerdictKind k) { return base::NameOf(kVerdictNames, k, ""); }

RunVerdict Verdict(const model::Trace& t, const VerdictInput& in) {
  using K = VerdictKind;
  if (in.devices == 0) {
    // An Nsight Systems export holds GPU work when CUDA was traced; without it the run's GPU
    // side is unknown, not absent.
    if (t.meta.format == "nsys") {
      uint64_t cuda_calls = 0;
      for (model::ApiDomain d : t.api.domain) cuda_calls += d != model::ApiDomain::kOs;
      if (cuda_calls == 0) {
        return {K::kNoGpuWork,
                "no GPU work recorded: the CUDA trace was not collected (nsys profile -t "
                "cuda,nvtx,osrt CMD)"};
      }
      return {K::kNoGpuWork, "no GPU work recorded: " + base::FormatCount(cuda_calls) +
                                 " CUDA calls but no kernel or copy ran in the trace"};
    }
    return {K::kCpuOnly, "CPU only: no GPU work in the trace"};
  }
  const CopyKinds copies = CopiesIn(t, in.window_start, in.window_end);
  if (in.kernel_ns == 0)
    return {K::kCopiesOnly, "no GPU kernels in the steady window (copies only)"};
  const std::string idle = base::FormatFixed(100 - in.gpu_busy_pct, 0) + "%";
  // Copies holding most of the GPU's work: say which.
  if (2 * copies.total_ns > copies.total_ns + in.kernel_ns && in.gpu_busy_pct >= 50) {
    size_t top = 0;
    for (size_t k = 1; k < copies.ns.size(); ++k)
      if (copies.ns[k] > copies.ns[top]) top = k;
    double share = 100.0 * static_cast<double>(copies.total_ns) /
                   static_cast<double>(copies.total_ns + in.kernel_ns);
    std::string what = std::string(model::MemopKindName(static_cast<model::MemopKind>(top))) +
                       " copies (" + base::FormatCount(copies.count[top]) +
                       (copies.bytes[top] > 0 ? ", " + base::FormatBytes(copies.bytes[top]) : "") +
                       ")";
    return {K::kCopyBound, "copy-bound: copies hold " + base::FormatFixed(share, 0) +
                               "% of the GPU's work, most of it " + what};
  }
  if (in.gpu_busy_pct >= 80)
    return {K::kGpuBound, "GPU-bound: the GPU is busy most of the steady state"};
  if (in.gpu_busy_pct + in.dispatch_gap_pct >= 80) {
    return {
        K::kGpuBound,
        "GPU-bound: the GPU always has work queued, but leaves " +
            base::FormatFixed(in.dispatch_gap_pct, 0) +
            "% of the steady state in gaps between kernels (dispatch gaps: many short kernels)"};
  }
  // GPU work without a single host event: the idle time is real, its cause unknown.
  if (t.api.size() == 0 && t.cpu.size() == 0 && t.python.size() == 0) {
    return {
        K::kNoHostEvent,
        "the GPU idles " + idle +
            " of the steady state; no host event is recorded, so what it waited for is unknown"};
  }
  if (const KernelRepeats k = RepeatsIn(t, in.window_start, in.window_end);
      in.steps < 2 && k.most < kOnePassRepeats) {
    return {K::kOnePass,
            "one pass: no steps and no kernel ran " + std::to_string(kOnePassRepeats) + " times (" +
                base::FormatCount(k.calls) + " kernels of " + base::FormatCount(k.names) +
                " names), so nothing here is a steady state; the GPU "
                "idles " +
                idle +
                " of the window between one-off calls (set-up, compilation, "
                "input preparation). Profile several iterations of the work to judge it"};
  }
  if (in.gpu_busy_pct + in.dispatch_gap_pct < 50)
    return {K::kCpuBound, "CPU-bound: the GPU waits for the host " + idle + " of the steady state"};
  return {K::kMixed, "mixed: the GPU idles " + idle + " of the steady state"};
}

}  // namespace gpuscope::analysis
