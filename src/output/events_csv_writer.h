#pragma once
// WriteEventsCsv: every event of the trace as one CSV row (events.csv of `gpuscope convert`),
// streamed into the sink. Columns:
//   kind        kernel, memcpy, memset, api, cpu_op, annotation, python, gpu_annotation, gpu_sync,
//               gpu_range (other GPU-side ranges), instant, counter, memory (a device
//               allocator's event: bytes > 0 allocated, < 0 freed)
//   name, start_ns, dur_ns     times in ns on the source's clock (as imported, not rebased)
//   pid, tid                   the host thread, or for GPU work the device and the stream
//   device, stream, correlation, external_id, bytes
//   copy_kind, src_kind, dst_kind   copies: HtoD/DtoH/..., Pageable/Pinned/Device/...
//   grid, block                kernels: "x,y,z"
//   domain                     api: runtime, driver, hsa, os
//   value                      counters
//   allocated_bytes, reserved_bytes, addr   memory: the allocator's totals after it, the block
// Empty means "not recorded" (never 0 for an unknown size). gpuscope reads the file back
// (import/gpuscope_csv/events_csv_importer), so an edited or filtered table can be analysed again.

#include <cstdint>

#include "base/byte_sink.h"
#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::output {

base::StatusOr<uint64_t> WriteEventsCsv(const model::Trace& trace, base::ByteSink& out);

}  // namespace gpuscope::output
