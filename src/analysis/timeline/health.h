#pragma once
// Trace health: what the trace says about how it was recorded - profiler settings and artefacts
// that limit or bias what gpuscope can conclude (shapes or stacks not recorded, GPU activity or
// runtime calls missing, graph replays without their capture, launch records dropped, a window
// of too few steps or steps cut at its edges, the tracer's own overhead, events of different
// runs). Each note says what it does to the analysis and the option that records what is
// missing. `info` lists them; `analyze` prints a line and puts them in its JSON (`health`).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct HealthNote {
  HealthNote() = default;
  // A note that leaves the verdict standing (trusted and impossible empty).
  HealthNote(std::string id_, std::string seen_, std::string effect_, std::string record_)
      : id(std::move(id_)),
        seen(std::move(seen_)),
        effect(std::move(effect_)),
        record(std::move(record_)) {}
  std::string id;      // "shapes-not-recorded": stable, for JSON consumers
  std::string seen;    // what the trace shows, with its numbers
  std::string effect;  // what it does to the analysis
  std::string record;  // the command or option that records what is missing
  // Set where the note leaves the run's verdict unsupportable (the verdict is then "incomplete
  // trace"): the part of the trace that can still be trusted.
  std::string trusted;
  // Times the note calls impossible (times-inconsistent) or holding GPU work the trace lacks
  // (gpu-work-missing), [start, end) on the trace's clock: no finding is priced on a fix that
  // touches them.
  std::vector<std::pair<int64_t, int64_t>> impossible;
  // Why a finding whose fix touches `impossible` is not priced, in words ("its times are ones
  // times-inconsistent calls impossible" when empty).
  std::string unpriced_why;
};

std::vector<HealthNote> CheckHealth(const model::Trace& t, const SteadyState& steady);

}  // namespace gpuscope::analysis
