#pragma once
// The events of a Chrome trace JSON, table by table, in the order the writer puts them
// (chrome_trace_writer.cc writes the header, the metadata rows and gpuscope's own rows around
// them). Each returns how many events it wrote; internal to src/output.

#include <cstddef>
#include <cstdint>

#include "model/trace.h"
#include "output/chrome_event_writer.h"
#include "output/track_layout.h"

namespace gpuscope::output::chrome_internal {

size_t WriteGpuOps(EventWriter& w, const model::Trace& t,
                   const TrackLayout& layout);  // kernels, copies
// Runtime calls (with their launches' kernel, grid and block), CPU ops and ranges, Python frames.
size_t WriteHostEvents(EventWriter& w, const model::Trace& t, const TrackLayout& layout);
// GPU-side annotations, stream waits and other GPU ranges.
size_t WriteGpuRanges(EventWriter& w, const model::Trace& t, const TrackLayout& layout);
// Instants, the device allocator's [memory] events and counters.
size_t WriteSamples(EventWriter& w, const model::Trace& t, const TrackLayout& layout);
// The launch call -> GPU work arrows (ac2g pairs); returns how many.
uint64_t WriteFlows(EventWriter& w, const model::Trace& t, const TrackLayout& layout);

}  // namespace gpuscope::output::chrome_internal
