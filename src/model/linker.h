#pragma once
// Linker: turns a freshly imported Trace into a linked one. Every importer calls LinkTrace
// once after filling the tables; analyses rely on what it sets up:
//
//  1. Every table is sorted by (start, longest first), so a parent precedes its children.
//  2. GPU work -> the API call that launched it, by correlation id. One call may launch many
//     GPU ops (CUDA/HIP graph launches), so the link is stored on the GPU side.
//  3. CPU ranges nest per thread by time containment (parent, depth). Ranges that overlap
//     without nesting are counted as a problem and treated as siblings.
//  4. API call -> the deepest CPU range on the same thread that contains it. Time containment,
//     not "External id": Kineto builds of 2021-2024 write the call's own correlation there.
//  5. CPU range -> the innermost Python frame on the same thread that contains it; Python
//     frames -> their parent frame (by "Python parent id", else by containment).
//  6. Iterations from ProfilerStep#N markers.
//
// Once launches are linked (2), the plausibility checks run (plausibility.h), and with
// LinkOptions::align_clocks a GPU clock behind the host's is shifted (clock_alignment.h) and the
// GPU tables sorted again, before the steps that follow read any time.

#include <cstddef>

#include "model/trace.h"

namespace gpuscope::model {

struct LinkOptions {
  bool align_clocks = false;  // --align-clocks (clock_alignment.h)
  int threads = 0;            // --threads: 1 links on the calling thread only; 0: as the cores
  // Python frames from which the CPU ranges' nesting and the frames' parents run at once.
  size_t parallel_min_rows = 1 << 18;
};

void LinkTrace(Trace& trace, const LinkOptions& options = {});

// Just step 1 (exposed for importers that need ordered tables before linking).
void SortTablesByTime(Trace& trace);

}  // namespace gpuscope::model
