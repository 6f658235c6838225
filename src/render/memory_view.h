#pragma once
// `gpuscope memory` rendered: per device the peak of allocated and reserved bytes, who held the
// memory at the peak and the allocated bytes at each steady step's end, as a terminal report,
// CSV (one row per holder) or the JSON contract
// {"source", "format", "devices": [{"device", "events", "allocations", "frees",
//  "totals_recorded", "peak_allocated_bytes", "peak_at_ns", "peak_reserved_bytes",
//  "peak_reserved_at_ns", "final_allocated_bytes", "growth_per_step_bytes",
//  "holders": [{"op", "python", "bytes", "blocks"}], "kept": [the same, for the blocks the steady
//  steps allocated and kept past the last one's end], "steps": [{"iteration", "end_ns",
//  "allocated_bytes", "allocations", "allocated_in_step_bytes"}]}]}.
// Times are ns on the trace's clock (the JSON) or from the trace's start (the table).

#include <string>

#include "analysis/timeline/memory_timeline.h"
#include "model/trace.h"

namespace gpuscope::render {

std::string MemoryText(const model::Trace& t, const std::string& path,
                       const analysis::MemoryTimeline& m);
std::string MemoryJson(const model::Trace& t, const std::string& path,
                       const analysis::MemoryTimeline& m);
std::string MemoryCsv(const analysis::MemoryTimeline& m);

}  // namespace gpuscope::render
