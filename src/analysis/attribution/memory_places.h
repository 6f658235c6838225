#pragma once
// Where in the program a framework allocator event happened: the deepest framework op around it
// on its host thread and the user's Python line - the place `gpuscope memory`'s holders and
// `stats --by memory`'s rows are named by.

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct MemoryPlace {
  std::string op;      // the deepest framework op around the event ("" outside any)
  std::string python;  // the innermost user frame around it ("" unknown)
};

// Finds the place of t.memory's rows. Each thread's CPU ranges are sorted once, on first use.
class MemoryPlaces {
 public:
  MemoryPlaces(const model::Trace& t, const Attributor& at) : t_(t), at_(at) {}
  MemoryPlace Of(size_t memory_row);

 private:
  // The deepest CPU range holding `ts` on `track` (kNoRow: none).
  model::RowId RangeAt(model::TrackId track, int64_t ts);

  const model::Trace& t_;
  const Attributor& at_;
  std::unordered_map<model::TrackId, std::vector<model::RowId>> by_track_;
};

}  // namespace gpuscope::analysis
