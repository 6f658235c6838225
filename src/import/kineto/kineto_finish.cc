// What is resolved once every segment is read: the side info of the segments merged, then names,
// flows and clamped times applied to the merged trace.

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "base/numbers.h"
#include "import/kineto/kineto_builder.h"

namespace gpuscope::import::kineto {

void KinetoSideInfo::Merge(KinetoSideInfo&& o) {
  for (auto& [k, v] : o.thread_names) {
    if (!thread_names.emplace(k, v).second) ++metadata_duplicates;
  }
  for (auto& [k, v] : o.process_names) {
    if (!process_names.emplace(k, v).second) ++metadata_duplicates;
  }
  flow_starts.insert(flow_starts.end(), o.flow_starts.begin(), o.flow_starts.end());
  flow_ends.insert(flow_ends.end(), o.flow_ends.begin(), o.flow_ends.end());
  metadata_duplicates += o.metadata_duplicates;
  zero_ts_events += o.zero_ts_events;
  timed_events += o.timed_events;
  max_decimals = std::max(max_decimals, o.max_decimals);
  rounded_ts += o.rounded_ts;
  saw_legacy_categories |= o.saw_legacy_categories;
  saw_hip_runtime |= o.saw_hip_runtime;
  saw_cuda_runtime |= o.saw_cuda_runtime;
}

void FinishKinetoTrace(model::Trace& trace, KinetoSideInfo& side) {
  for (model::Track& tr : trace.tracks) {
    auto it = side.thread_names.find(
        {std::string(trace.str(tr.pid_text)), std::string(trace.str(tr.tid_text))});
    if (it != side.thread_names.end()) tr.name = trace.strings.Intern(it->second);
  }
  for (const auto& [pid, name] : side.process_names) {
    if (auto v = base::ParseInt64(pid)) trace.process_names[*v] = trace.strings.Intern(name);
  }
  if (side.metadata_duplicates > 0) {
    trace.record_counts["duplicate metadata records (first kept)"] += side.metadata_duplicates;
  }
  // Flows: ac2g 's' sits on the launch, 'f' on the GPU op. Runtime calls that need no GPU
  // link still emit an 'f' with no 's' (kineto), so dangling ends are normal and only counted.
  if (!side.flow_starts.empty() || !side.flow_ends.empty()) {
    std::unordered_set<uint64_t> starts(side.flow_starts.begin(), side.flow_starts.end());
    uint64_t dangling = 0;
    for (uint64_t id : side.flow_ends) dangling += starts.count(id) == 0;
    trace.record_counts["flow starts"] += side.flow_starts.size();
    trace.record_counts["flow ends"] += side.flow_ends.size();
    if (dangling) trace.record_counts["flow ends without a start (normal in Kineto)"] += dangling;
  }
  // Kineto writes ts relative to a base and clamps negative results to 0 (pytorch#188481):
  // a complete event at exactly ts 0 with dur 0 in a trace whose other events sit later has
  // no real time. They are kept (they are real dispatches) but left out of time spans.
  if (side.zero_ts_events > 0 && side.zero_ts_events < side.timed_events) {
    trace.meta.clamped_zero_events = side.zero_ts_events;
    trace.problems.Add(model::ProblemKind::kKinetoTsClampedToZero,
                       "events at ts 0 with duration 0: Kineto clamps times before its base "
                       "to 0, so their real time is unknown; counted, left out of time spans",
                       side.zero_ts_events);
  }
  if (side.rounded_ts > 0) {
    trace.problems.Add(model::ProblemKind::kKinetoTsSubNsRounded,
                       "timestamps finer than 1 ns were rounded to the nanosecond",
                       side.rounded_ts);
  }
}

}  // namespace gpuscope::import::kineto
