#pragma once
// The rule checks of `analyze`, one file each in this folder: each reads the shared Context and
// appends its findings (their ids, texts and defaults are the table in analysis/rules.cc).

#include <vector>

#include "analysis/analyze_context.h"

namespace gpuscope::analysis::internal {

// gpu-idle: GPU idle gaps in the steady window, grouped by what the host did during them.
void GpuIdle(const Context& c, std::vector<Finding>& out);

// launch-bound: storms of tiny kernels whose launch cost keeps the GPU waiting.
void LaunchBound(const Context& c, std::vector<Finding>& out);

// cpu-op-storm: floods of tiny CPU ops issued from one place per iteration.
void CpuOpStorm(const Context& c, std::vector<Finding>& out);

// host-sync: host synchronisations inside the steady state, with the copy that forced them.
void HostSync(const Context& c, std::vector<Finding>& out);

// memcpy-in-loop, memcpy-sync, memcpy-pageable and small-memcpy: host<->device copies.
void Copies(const Context& c, std::vector<Finding>& out, AnalysisSummary& summary);

// kernel-outlier and kernel-hotspot: slow instances of a kernel, and the kernels that dominate.
void KernelOutliersAndHotspots(const Context& c, std::vector<Finding>& out);

}  // namespace gpuscope::analysis::internal
