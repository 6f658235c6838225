#pragma once
// The rules of `analyze`, one file each in this folder, each with its registry entry (see
// analysis/findings/registry.h): the entry's check reads the shared Context, leaves out the events
// an earlier rule claimed, claims its own, and appends findings with the fix the replay prices them
// by.

#include "analysis/findings/context.h"
#include "analysis/findings/registry.h"

namespace gpuscope::analysis::internal {

const RuleInfo& WarmUpRule();            // warm-up: one-time set-up in a window without steps
const RuleInfo& HostSyncRule();          // host-sync: .item() and explicit synchronizations
const RuleInfo& MemcpySyncRule();        // memcpy-sync: copies that block the host
const RuleInfo& MemcpyPageableRule();    // memcpy-pageable: copies from/to pageable memory
const RuleInfo& SmallMemcpyRule();       // small-memcpy: many small copies per iteration
const RuleInfo& MemcpyInLoopRule();      // memcpy-in-loop: the copies of every iteration
const RuleInfo& AllocatorRule();         // allocator: cudaMalloc / cudaFree in the steady state
const RuleInfo& DeviceCopyRule();        // device-copy: GPU time only moving or converting data
const RuleInfo& FusionRule();            // fusion: chains of memory-bound kernels to fuse
const RuleInfo& DataLoadingRule();       // data-loading: the loader on the feeding thread
const RuleInfo& CommWaitRule();          // comm-wait: compute waiting on a collective's stream
const RuleInfo& CpuOpStormRule();        // cpu-op-storm: floods of tiny ops from one place
const RuleInfo& LaunchBoundRule();       // launch-bound: storms of launch-bound tiny kernels
const RuleInfo& KernelOutlierRule();     // kernel-outlier: slow instances of a kernel
const RuleInfo& SmallGridRule();         // small-grid: grids with fewer blocks than SMs / CUs
const RuleInfo& KernelEfficiencyRule();  // kernel-efficiency: far below the roofline
const RuleInfo& KernelHotspotRule();     // kernel-hotspot: kernels that dominate (information)
const RuleInfo& GpuIdleRule();           // gpu-idle: the idle gaps no other rule explains
const RuleInfo& MemoryGrowthRule();      // memory-growth: allocated memory growing every step
const RuleInfo& LowUtilizationRule();    // low-utilization: a summary of the idle split

}  // namespace gpuscope::analysis::internal
