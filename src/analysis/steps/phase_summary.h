#pragma once
// Per-phase figures of a serving trace (prefill / decode / mixed steps): latency, tokens, GPU
// busy and the kernels that take the time, for `analyze`, `stats --phase` and `diff`.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct PhaseSummary {
  std::string name;
  std::string evidence;  // how the steps were classified
  size_t steps = 0;
  size_t warmup = 0;
  LatencyStats latency;
  int64_t tokens_per_step = -1;   // -1: the annotations give no count
  double tokens_per_second = -1;  // tokens_per_step / median latency; -1 unknown
  int64_t gpu_ns = 0;             // GPU time (union over the devices' ops) of its steps
  double gpu_busy_pct = -1;       // of the steps' spans (host step to its last GPU op)
  std::vector<std::pair<std::string, int64_t>> top_kernels;  // name, summed time; largest first
  // When the trace has more than one phase: what the run's fixes save in this phase's steps
  // (the whole window's replays cut at the steps, ReplayGraph::SetSteps: each step done once
  // the host reached its end and the GPU finished its work): rule, impact and its share of the
  // steps' replayed time; largest first. Where steps tile the window, a fix's savings over the
  // phases add up to its impact unless it makes some steps slower than it makes others faster.
  struct PhaseFinding {
    std::string rule;
    int64_t impact_ns = 0;
    double impact_percent = 0;
  };
  std::vector<PhaseFinding> findings;
};

// "no prefill steps in this trace (phases: decode)": why `--phase NAME` cannot be honoured.
std::string MissingPhaseMessage(const SteadyState& steady, const std::string& phase);

// How many steps of other phases (or of none) run between the first and the last step of
// `phase`: where a server interleaves its phases, `--phase NAME`'s window holds their work too.
size_t InterleavedSteps(const SteadyState& steady, const std::string& phase);

std::vector<PhaseSummary> SummarisePhases(const model::Trace& t, const SteadyState& steady,
                                          size_t top_kernels = 3);

// The time intervals of a phase's steps (each step to the end of the GPU work it launched),
// sorted: the window of `stats --phase`.
std::vector<std::pair<int64_t, int64_t>> PhaseIntervals(const model::Trace& t,
                                                        const SteadyState& steady,
                                                        const PhaseSteps& phase);

}  // namespace gpuscope::analysis
