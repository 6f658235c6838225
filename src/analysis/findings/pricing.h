#pragma once
// Prices the findings of `analyze` by replaying the run with their fixes through PriceInOrder
// (price_in_order.h, shared with jobs): root causes before gpu-idle, the catch-all.

#include <cstdint>
#include <vector>

#include "analysis/findings/context.h"
#include "analysis/replay/replay_graph.h"

namespace gpuscope::analysis::internal {

// A serving trace's phases, cut from the window's replays: the steady steps in order (the
// graph's steps, ReplayGraph::SetSteps) and each one's phase. A phase's time is its steps'
// (each from its begin to when it is done); steps that run to the next one's start tile the
// window, and then the phases' savings add up to the window's.
struct PhaseCut {
  std::vector<std::pair<int64_t, int64_t>> steps;  // host spans, sorted
  std::vector<int> step_phase;                     // per step: index into the phases (-1: none)
  size_t phases = 0;
};

struct Pricing {
  int64_t baseline_ns = 0;  // the unchanged graph replayed, its one-time costs done before it
  int64_t as_run_ns = 0;    // ... with its one-time costs (the window as it ran)
  // ... as the program ran it: the recording's parts (a wait for GPU work the trace does not
  // hold) done before it, which no fix saves; as_run_ns when there are none.
  int64_t program_run_ns = 0;
  int64_t combined_ns = 0;  // with every fix that saves something
  // Savings are shares of the replayed window (it runs past the steady window when the GPU
  // finishes work the host queued ahead), never of less than the steady window.
  int64_t percent_of_ns = 1;
  double Percent(int64_t ns) const {
    return 100.0 * static_cast<double>(ns) / static_cast<double>(percent_of_ns);
  }
  // With a PhaseCut: per phase, its steps' time in the unchanged replay, and per candidate and
  // phase what its fix saves in those steps, added in the same order as impact_ns (on top of
  // the fixes before it, never more than it saves there alone).
  std::vector<int64_t> phase_ns;
  std::vector<std::vector<int64_t>> phase_impact_ns;  // [candidate][phase]
};

// `cut`: the phases to price in (the graph's steps set from it), or null.
Pricing PriceFindings(const Context& c, const ReplayGraph& graph, std::vector<Candidate>& cands,
                      const PhaseCut* cut = nullptr);

}  // namespace gpuscope::analysis::internal
