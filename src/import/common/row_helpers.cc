#include "import/common/row_helpers.h"

#include <string>

namespace gpuscope::import {

int64_t DurationOrZero(model::Trace& t, int64_t start, int64_t end, std::string_view problem_kind,
                       std::string_view where) {
  if (end >= start) return end - start;
  t.problems.Add(problem_kind, std::string(where) + ": start " + std::to_string(start) + " > end " +
                                   std::to_string(end) + "; kept with duration 0");
  return 0;
}

model::TrackId NumericTracks::Get(int64_t a, int64_t b, bool* created) {
  auto [it, inserted] = cache_.emplace(std::make_pair(a, b), 0);
  if (inserted) it->second = t_.InternTrack(kind_, std::to_string(a), std::to_string(b));
  if (created) *created = inserted;
  return it->second;
}

}  // namespace gpuscope::import
