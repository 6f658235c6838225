#pragma once
// AppendTraces: moves every event of the sources into `dst`, re-interning names and tracks.
// Used by importers that parse one file in parallel segments, each into its own Trace, and by
// those that read several files into one. Call before LinkTrace (links are not remapped).

#include <cstddef>
#include <vector>

#include "model/trace.h"

namespace gpuscope::model {

// The sources are appended in order (as if one by one) and left empty. Each column of `dst`
// grows once, to its exact total, and each source column is freed as soon as it is copied: the
// merge holds one column's copy per thread beyond its inputs (a million distinct names, issue
// 33). A large merge copies its columns on every core (base::RunJobs), a small one on this
// thread.
struct MergeOptions {
  int threads = 0;  // the most threads that copy columns (--threads); 0: one per core
  // Below this many bytes to copy, the columns are appended on the calling thread alone.
  size_t parallel_min_bytes = 16 << 20;
};
void AppendTraces(Trace& dst, const std::vector<Trace*>& srcs, const MergeOptions& options = {});
inline void AppendTrace(Trace& dst, Trace&& src, const MergeOptions& options = {}) {
  AppendTraces(dst, {&src}, options);
}

// Makes room in every column for `factor` times the rows it holds (factor > 1), so that a column
// filled at a steady rate grows once, not by doubling: each doubling copies the column and
// touches fresh pages. Room never written costs address space, not memory; room that cannot be
// had is not taken.
void ReserveScaled(Trace& t, double factor);

}  // namespace gpuscope::model
