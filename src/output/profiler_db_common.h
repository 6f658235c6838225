#pragma once
// What the nsys and rocpd writers share (internal to src/output): a CPU op's emit_nvtx text and
// the count of what neither format can hold.

#include <string>
#include <string_view>

#include "base/sqlite_batch.h"
#include "model/trace.h"
#include "output/profiler_db_writers.h"
#include "output/track_layout.h"

namespace gpuscope::output::profiler_db {

// The op's range text as emit_nvtx(record_shapes=True) writes it: name, op id, input sizes
// ("[[2, 3], []]": a tensor's dims, [] for other arguments) when its arguments recorded them.
std::string OpRangeText(const model::Trace& t, size_t cpu_row);

// A correlation id as the source recorded it, NULL when it has none (or none SQLite can hold).
void BindCorrelation(base::SqliteBatchInsert& q, int index, uint64_t correlation);

// The layout pid of the main process: the one whose threads make the most API calls (it launches
// the GPU work), else the lowest pid of a host thread; 0 without host threads.
int64_t MainPid(const model::Trace& t, const TrackLayout& layout);

// Adds (what, n) to `counts.dropped` when n > 0.
void Dropped(LossyWriteCounts& counts, std::string what, uint64_t n);

// The events neither format has a place for: Python frames, GPU-side annotation ranges, counter
// samples, allocator memory events.
void CountCommonDrops(const model::Trace& t, LossyWriteCounts& counts);

// GPU ranges that record which event a stream waited for (an nsys export holds them; rocpd
// does not).
uint64_t RecordedStreamWaits(const model::Trace& t);

// A JSON string literal of `text` ("..." with escapes), for JSON columns.
std::string JsonString(std::string_view text);

}  // namespace gpuscope::output::profiler_db
