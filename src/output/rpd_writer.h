#pragma once
// WriteRpd: the trace as a rocmProfileData .rpd file (schema v2, the version every rpd tool
// reads), so that a trace from any tool can be queried with the rpd views (top, ktop, busy,
// kernel, copy) and converted by rpd2tracing.
//
// Mapping (rpd_tracer's own conventions):
//   kernels -> rocpd_op (opType KernelExecution, description = name); copies -> rocpd_op
//   (opType CopyHostToDevice/..., FillBuffer for memsets; description = the copy's name);
//   API calls -> rocpd_api, linked to their ops through rocpd_api_ops, with rocpd_kernelapi
//   (grid, block) for calls that launch one kernel and rocpd_copyapi (size, kind) for copies;
//   CPU ops and annotations -> rocpd_api rows named UserMarker whose args are the range name
//   (what roctx ranges become); instants -> zero-length UserMarker rows; counters ->
//   rocpd_monitor.
// What rpd v2 cannot say goes to extension tables that rpd tools ignore and gpuscope reads
// back: ext_gpuscope_api (the kind of each UserMarker range: op / annotation, external ids, and
// API domains the name does not imply), ext_gpuscope_args (an op's shapes and types),
// ext_gpuscope_python (Python frames, packed: format/rpd_python_frames.h - rpd_tracer records
// none, and as two rows each they were most of the writing time), ext_gpuscope_op (each copy's
// direction, memory kinds and size), ext_gpuscope_kernel (grid and block of kernels that have no
// rocpd_kernelapi row: graph kernels) and ext_gpuscope_gpurange (GPU-side ranges: annotations on
// a stream, sync records - not work, so kept out of rocpd_op and its views); device, process and
// thread names go to rocpd_metadata as gpuscope::* tags.

#include <cstdint>
#include <string>

#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::output {

struct RpdWriteCounts {
  uint64_t ops = 0;
  uint64_t api = 0;  // rocpd_api rows (calls + markers)
  uint64_t monitor = 0;
  uint64_t gpu_ranges = 0;  // in ext_gpuscope_gpurange
};

// Creates `path` (replacing it). Fails with one line naming the file.
base::StatusOr<RpdWriteCounts> WriteRpd(const model::Trace& trace, const std::string& path);

}  // namespace gpuscope::output
