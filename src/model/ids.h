#pragma once
// Index types of the trace model. Every row reference is a 32-bit index into its table;
// kNoRow marks a missing link.

#include <cstdint>
#include <limits>

#include "base/string_pool.h"

namespace gpuscope::model {

using base::StringId;
using RowId = uint32_t;
using TrackId = uint32_t;
inline constexpr RowId kNoRow = std::numeric_limits<RowId>::max();
inline constexpr uint64_t kNoCorrelation = 0;  // CUPTI / roctracer ids start at 1

}  // namespace gpuscope::model
