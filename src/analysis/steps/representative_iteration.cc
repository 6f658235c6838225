#include "analysis/steps/representative_iteration.h"

#include <cstdlib>

namespace gpuscope::analysis {

RepresentativeWindow PickRepresentativeIteration(const SteadyState& ss) {
  if (ss.steady_count() == 0) return {ss.start_ns, ss.end_ns, -1};
  const IterationSpan* best = nullptr;
  for (size_t i = ss.warmup; i < ss.iterations.size(); ++i) {
    const auto& it = ss.iterations[i];
    // The first of equally close iterations wins, so the choice is stable.
    if (!best || std::llabs(it.dur_ns - ss.latency.median_ns) <
                     std::llabs(best->dur_ns - ss.latency.median_ns)) {
      best = &it;
    }
  }
  return {best->start_ns, best->end_ns(), best->number};
}

}  // namespace gpuscope::analysis
