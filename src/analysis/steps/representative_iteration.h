#pragma once
// The iteration a viewer should look at (the HTML report's timeline): the steady iteration whose
// latency is closest to the median; without steady iterations, the whole steady window.

#include <cstdint>

#include "analysis/steps/steady_state.h"

namespace gpuscope::analysis {

struct RepresentativeWindow {
  int64_t start_ns = 0, end_ns = 0;
  int64_t iteration = -1;  // its number; -1 when the window is not one iteration
};

RepresentativeWindow PickRepresentativeIteration(const SteadyState& steady);

}  // namespace gpuscope::analysis
