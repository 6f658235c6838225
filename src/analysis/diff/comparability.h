#pragma once
// Whether two runs can be compared at all, and why not: a side whose timeline is incomplete
// (its health notes or a broken file say so), runs that share little of their kernel time, or
// runs of different models. `diff` says "not comparable" with the reason instead of a verdict.

#include <string>
#include <vector>

#include "analysis/diff/diff.h"

namespace gpuscope::analysis {

// Below this share of either side's kernel time in kernels both ran, the runs did different work.
inline constexpr double kMinSharedKernelShare = 0.5;

// Health notes (analysis/timeline/health.h) that say part of a run's work is not in its trace:
// its totals are not the run's. A note added for a timeline that lost work goes here.
inline constexpr std::string_view kIncompleteTimelineNotes[] = {
    "gpu-work-missing", "times-inconsistent", "gpu-activity-not-recorded"};

// The models a trace ran: the outermost nn.Module frames (PyTorch's with_modules /
// with_stack: "nn.Module: BertModel_0" -> "BertModel"), by name. Empty when it records none.
std::vector<std::string> ModelsOf(const model::Trace& t);

// The share of each side's kernel time (rows of r.kernels) in kernel names both sides ran.
struct SharedWork {
  double before = 1, after = 1;
};
SharedWork SharedKernelTime(const DiffReport& r);

// True when what `w` names (its op, else its kernel) runs in the warm-up steps of `s` and not in
// its steady window: a finding gone from the after run's steady steps moved there.
bool OnlyInWarmup(const model::Trace& t, const SteadyState& s, const Where& w);

// Why the two runs cannot be compared; empty when they can. Runs of one model (ModelsOf), or
// whose kernel time comes mostly (kMinSharedKernelShare, each side) from framework ops both ran,
// are compared whatever their kernels are called (two GPUs' libraries, fp32 and AMP, name them
// differently). `r` holds
// both analyses and the matched kernels.
std::string NotComparableReason(const DiffReport& r, const model::Trace& before,
                                const model::Trace& after);

}  // namespace gpuscope::analysis
