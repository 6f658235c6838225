#pragma once
// Writers of the two profilers' own SQLite databases, in their schemas, so that a trace from any
// tool reads as that profiler's run would (gpuscope's round trips test it; the profilers' own
// tools have not been run on them here):
//   WriteNsysSqlite: an Nsight Systems export (`nsys export --type sqlite`, export schema 3.x
//     columns): StringIds, the CUPTI_ACTIVITY_KIND_* tables (RUNTIME, KERNEL, MEMCPY, MEMSET,
//     SYNCHRONIZATION), NVTX_EVENTS, OSRT_API, TARGET_INFO_GPU, PROCESSES, ThreadNames and the
//     ENUM_* tables they refer to.
//   WriteRocpd: a rocprofv3 rocpd database (schema 3): the rocpd_* tables with the per-run
//     UUID suffix and the un-suffixed views over them, as rocprofv3 writes them (its summary
//     views - kernels, top, busy... - are not written).
// In both, CPU ops become ranges in the text torch.autograd.profiler.emit_nvtx gives them
// (format/emit_nvtx.h: NVTX, roctx on ROCm), annotations plain ranges, instants marks; API
// calls keep their correlation ids, so launches link to their GPU work as in the source.
// What a format has no place for is not written and counted (LossyWriteCounts::dropped):
// Python frames, GPU-side annotation ranges, counter samples and the allocator's memory events
// in both; memsets, OS runtime calls, sync records and recorded stream waits in rocpd too (the
// nsys export holds a wait as its sync row linked to a CUDA event record).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::output {

struct LossyWriteCounts {
  uint64_t gpu_ops = 0;      // kernels, copies, fills
  uint64_t api = 0;          // runtime / driver / OS calls
  uint64_t host_ranges = 0;  // ops, annotations, marks
  // (what, how many) of the events the format has no place for.
  std::vector<std::pair<std::string, uint64_t>> dropped;
};

// Each creates `path` (a new file of the caller's) and fails with one line naming it.
base::StatusOr<LossyWriteCounts> WriteNsysSqlite(const model::Trace& trace,
                                                 const std::string& path);
base::StatusOr<LossyWriteCounts> WriteRocpd(const model::Trace& trace, const std::string& path);

}  // namespace gpuscope::output
