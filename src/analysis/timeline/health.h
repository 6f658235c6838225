#pragma once
// Trace health: what the trace says about how it was recorded - profiler settings and artefacts
// that limit or bias what gpuscope can conclude (shapes or stacks not recorded, GPU activity or
// runtime calls missing, graph replays without their capture, launch records dropped, a window
// of too few steps or steps cut at its edges, the tracer's own overhead, events of different
// runs). Each note says what it does to the analysis and the option that records what is
// missing. `info` lists them; `analyze` prints a line and puts them in its JSON (`health`).

#include <string>
#include <vector>

#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct HealthNote {
  std::string id;      // "shapes-not-recorded": stable, for JSON consumers
  std::string seen;    // what the trace shows, with its numbers
  std::string effect;  // what it does to the analysis
  std::string record;  // the command or option that records what is missing
};

std::vector<HealthNote> CheckHealth(const model::Trace& t, const SteadyState& steady);

}  // namespace gpuscope::analysis
