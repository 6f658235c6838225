#include "analysis/attribution/memory_places.h"

#include <algorithm>

#include "analysis/common/deepest_range.h"
#include "analysis/work/work_models.h"

namespace gpuscope::analysis {

using model::RowId;

RowId MemoryPlaces::RangeAt(model::TrackId track, int64_t ts) {
  auto [it, fresh] = by_track_.try_emplace(track);
  std::vector<RowId>& rows = it->second;
  if (fresh) {
    for (size_t i = 0; i < t_.cpu.size(); ++i) {
      if (t_.cpu.track[i] == track) rows.push_back(static_cast<RowId>(i));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](RowId a, RowId b) { return t_.cpu.start_ns[a] < t_.cpu.start_ns[b]; });
  }
  // An event at the instant an op ends is still the op's (its outputs' frees).
  return DeepestRangeAt(t_, rows, ts, /*end_inclusive=*/true);
}

MemoryPlace MemoryPlaces::Of(size_t i) {
  // The Python line from the deepest range, the op from the deepest framework op (a step's
  // annotation, "ProfilerStep#7", is not a place: it would split one place per step).
  MemoryPlace p;
  RowId r = RangeAt(t_.memory.track[i], t_.memory.ts_ns[i]);
  if (r == model::kNoRow) return p;
  p.python = at_.PythonOf(r);
  r = OpAround(t_, r);
  if (r != model::kNoRow) p.op = std::string(t_.str(t_.cpu.name[r]));
  return p;
}

}  // namespace gpuscope::analysis
