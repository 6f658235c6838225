#pragma once
// The one-line verdict of `analyze`: what held the run back, in the words of what the GPU did.
// GPU-bound, CPU-bound or mixed by the GPU's busy share of the steady window; copy-bound when
// copies hold most of the GPU's busy time (which copies: kind, count, bytes); the trace's own
// limits when it cannot say (no GPU work recorded, or GPU work without any host event).

#include <cstdint>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace gpuscope::analysis {

struct VerdictInput {
  int devices = 0;           // GPUs with work in the window
  double gpu_busy_pct = -1;  // busy share of the window, all devices
  int64_t kernel_ns = 0;     // kernel time in the window
  int64_t window_start = 0, window_end = 0;
  // Idle share of the window between queued work (the GPU's dispatch gaps, all devices): the
  // GPU is not waiting for the host then.
  double dispatch_gap_pct = 0;
  size_t steps = 0;  // steady steps found (0 or 1: none; the window is one span of GPU work)
};

// A window without steps whose kernels each ran fewer times than a loop repeats (min_repeats of
// the steady state: 3) holds one pass of one-off work - a benchmark of distinct kernels, set-up,
// compilation - and no steady state: its idle is that pass's host work, not a loop's cost.
inline constexpr size_t kOnePassRepeats = 3;

// What held the run back, as a kind (the contract: JSON "verdict_kind", `help terms`) and the
// sentence that says it with the trace's figures.
enum class VerdictKind {
  kGpuBound,
  kCpuBound,
  kMixed,
  kCopyBound,
  kCpuOnly,
  kNoGpuWork,    // the GPU side was not recorded (nsys without the CUDA trace) or did not run
  kCopiesOnly,   // GPU copies but no kernels in the window
  kNoHostEvent,  // GPU work without any host event: what it waited for is unknown
  // A health note (timeline/health.h, HealthNote::trusted) says the trace lost or bent what the
  // verdict would rest on: GPU work missing, times that cannot be real.
  kIncompleteTrace,
  // No steps and no kernel that ran kOnePassRepeats times or more, the GPU mostly idle: one pass
  // of one-off work, nothing to call CPU-bound (the idle is set-up, not a loop's).
  kOnePass,
};
// "GPU-bound", "CPU-bound", "mixed", "copy-bound", "CPU only", "no GPU work recorded",
// "copies only", "no host event", "incomplete trace", "one pass": the words `help terms` explains.
std::string_view VerdictKindName(VerdictKind k);

struct RunVerdict {
  VerdictKind kind = VerdictKind::kCpuOnly;
  std::string text;
};

RunVerdict Verdict(const model::Trace& t, const VerdictInput& in);

}  // namespace gpuscope::analysis
