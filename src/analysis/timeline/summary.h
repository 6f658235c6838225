#pragma once
// TraceSummary: what `gpuscope info` reports about a trace - what wrote it, what it holds,
// how well its events are linked, and what was wrong with it.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/steps/steady_state.h"
#include "analysis/timeline/clock_check.h"
#include "analysis/timeline/health.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct TraceSummary {
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  std::vector<std::pair<std::string, uint64_t>> counts;  // event kind -> count, fixed order
  uint64_t cpu_threads = 0;
  uint64_t gpu_streams = 0;
  uint64_t kernels_linked = 0;  // kernels whose launching API call was found
  uint64_t memops_linked = 0;
  uint64_t api_in_cpu_op = 0;      // API calls inside a CPU op
  uint64_t cpu_ops_in_python = 0;  // CPU ranges inside a Python frame
  std::vector<model::Iteration> iterations;
  size_t model_bytes = 0;
  ClockCheck clocks;  // launch-to-start latency per device and what it says
  // Steps as `analyze` finds them (steady_state.h): where from, how many, per phase.
  std::string step_source;
  size_t steps = 0;
  std::vector<std::pair<std::string, size_t>> phase_steps;
  std::string structure;           // "36 repeats of a 15-kernel block", "" none
  uint64_t graph_captures = 0;     // graphs captured in this trace
  uint64_t captured_launches = 0;  // launches recorded in them
  uint64_t graph_launches = 0;     // graph launch calls with kernels
  std::vector<HealthNote> health;  // how the trace was recorded (health.h)
};

TraceSummary Summarize(model::Trace& trace);

}  // namespace gpuscope::analysis
