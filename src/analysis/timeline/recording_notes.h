#pragma once
// Health notes on what the recording lost or bent (issue 51), beside health.cc's notes on how it
// was set up: GPU work the host waited for that the trace does not hold (`gpu-work-missing`),
// times that cannot be real (`times-inconsistent`), and the tracer's own cost - its overhead
// records and the regular spacing it puts between the kernels it serialises (`tracer-overhead`).
// The first two leave the run's verdict unsupportable (HealthNote::trusted) and name the times
// no finding may be priced on (HealthNote::impossible).

#include <cstdint>
#include <vector>

#include "analysis/timeline/health.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The host's waits against the GPU work recorded while it waited: the union of the synchronizing
// calls and blocking copies (IsSyncApi, IsBlockingCopyApi) and the part of it in which no GPU op
// ran.
struct HostWaits {
  int64_t wait_ns = 0;       // synchronizing calls, their union
  int64_t unexplained = 0;   // of that, time no recorded GPU op ran (beyond each wait's slack)
  int64_t gpu_busy_ns = 0;   // the GPU ops' union (all devices)
  int64_t last_gpu_end = 0;  // the last GPU op's end
  int64_t late_tail = 0;     // the longest time a synchronizing call ran past the last GPU op
  std::vector<std::pair<int64_t, int64_t>> idle_waits;  // the unexplained stretches
  std::vector<std::pair<int64_t, int64_t>> waits;       // the synchronizing calls' union
};
// Over [w0, w1): the synchronizing calls that overlap it, whole; GPU work anywhere.
HostWaits MeasureHostWaits(const model::Trace& t, int64_t w0, int64_t w1);

// The notes, appended in this order: times-inconsistent, gpu-work-missing (also from the tracer's
// own word that it lost events: model::TraceMetadata::tracer_messages), tracer-overhead,
// tracer-warnings (its other warnings about the traced processes).
void RecordingIntegrityNotes(const model::Trace& t, std::vector<HealthNote>& out);

}  // namespace gpuscope::analysis
