#pragma once
// The deepest CPU range of one thread that holds a time: what the memory places and the
// critical path's host categories both name a moment on a thread by.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// `rows`: one thread's CPU ranges sorted by start. Ranges on a thread nest, so the last one to
// start at or before `ts`, or the first of its parents still open then, is the deepest holding
// it; kNoRow when none does. `end_inclusive`: a range also holds the instant it ends.
inline model::RowId DeepestRangeAt(const model::Trace& t, const std::vector<model::RowId>& rows,
                                   int64_t ts, bool end_inclusive) {
  const auto& cpu = t.cpu;
  auto it = std::upper_bound(rows.begin(), rows.end(), ts,
                             [&](int64_t v, model::RowId r) { return v < cpu.start_ns[r]; });
  if (it == rows.begin()) return model::kNoRow;
  auto holds = [&](model::RowId r) {
    return end_inclusive ? cpu.end_ns(r) >= ts : cpu.end_ns(r) > ts;
  };
  model::RowId r = *(it - 1);
  for (int depth = 0; r != model::kNoRow && !holds(r) && depth < 256; ++depth) r = cpu.parent[r];
  return r != model::kNoRow && holds(r) ? r : model::kNoRow;
}

}  // namespace gpuscope::analysis
