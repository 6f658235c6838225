#pragma once
// The rule checks of `analyze`, one file each in this folder: each reads the shared Context,
// leaves out the events an earlier rule claimed, claims its own, and appends its findings with
// the fix that the replay prices them by (their ids, texts and defaults are the table in
// analysis/rules.cc). Analyze runs them in the order below: specific root causes first.

#include <vector>

#include "analysis/analyze_context.h"

namespace gpuscope::analysis::internal {

// host-sync: host synchronisations inside the steady state, with the copy that forced them.
void HostSync(const Context& c, Claims& claims, std::vector<Candidate>& out);

// memcpy-sync, memcpy-pageable, small-memcpy and memcpy-in-loop: host<->device copies.
void Copies(const Context& c, Claims& claims, std::vector<Candidate>& out,
            AnalysisSummary& summary);

// data-loading: the input pipeline running on the thread that feeds the GPU.
void DataLoading(const Context& c, Claims& claims, std::vector<Candidate>& out);

// cpu-op-storm: floods of tiny CPU ops issued from one place per iteration.
void CpuOpStorm(const Context& c, Claims& claims, std::vector<Candidate>& out);

// launch-bound: storms of tiny kernels whose launch cost keeps the GPU waiting.
void LaunchBound(const Context& c, Claims& claims, std::vector<Candidate>& out);

// kernel-outlier and kernel-hotspot: slow instances of a kernel, and the kernels that dominate.
void KernelOutliersAndHotspots(const Context& c, Claims& claims, std::vector<Candidate>& out);

// gpu-idle: the GPU idle gaps no finding above explains, grouped by what the host did then.
void GpuIdle(const Context& c, Claims& claims, std::vector<Candidate>& out);

}  // namespace gpuscope::analysis::internal
