#pragma once
// Prices the findings of `analyze` by replaying the run with their fixes through PriceInOrder
// (price_in_order.h, shared with jobs): root causes before gpu-idle, the catch-all.

#include <cstdint>
#include <vector>

#include "analysis/findings/context.h"
#include "analysis/replay/replay_graph.h"

namespace gpuscope::analysis::internal {

struct Pricing {
  int64_t baseline_ns = 0;  // the unchanged graph replayed
  int64_t combined_ns = 0;  // with every fix that saves something
  // Savings are shares of the replayed window (it runs past the steady window when the GPU
  // finishes work the host queued ahead), never of less than the steady window.
  int64_t percent_of_ns = 1;
  double Percent(int64_t ns) const {
    return 100.0 * static_cast<double>(ns) / static_cast<double>(percent_of_ns);
  }
};

Pricing PriceFindings(const Context& c, const ReplayGraph& graph, std::vector<Candidate>& cands);

}  // namespace gpuscope::analysis::internal
