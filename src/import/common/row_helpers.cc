#include "import/common/row_helpers.h"

#include <string>

namespace gpuscope::import {

model::TrackId NumericTracks::Get(int64_t a, int64_t b, bool* created) {
  auto [it, inserted] = cache_.emplace(std::make_pair(a, b), 0);
  if (inserted) it->second = t_.InternTrack(kind_, std::to_string(a), std::to_string(b));
  if (created) *created = inserted;
  return it->second;
}

}  // namespace gpuscope::import
