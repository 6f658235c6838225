#pragma once
// AnalyzeJob: the ranks of one distributed job side by side. Their clocks are aligned on the
// collectives (an instance ends on every rank at the same moment: the last rank's arrival plus
// the transfer), each instance's time is split into waiting for the last rank (skew) and
// transfer, the rank whose late arrivals cost the others most is named with what it was doing
// instead, and the findings rank-straggler, collective-skew and comm-exposed are priced by
// replaying the job's cross-rank dependencies (job_replay.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/job/rank_timeline.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// One rank's trace.
struct RankInput {
  int32_t rank = 0;
  std::string path;
  const model::Trace* trace = nullptr;
};

struct JobOptions {
  double min_impact_percent = 0.1;  // findings below this share of the job's span are noise
  size_t evidence = 5;              // instances listed per finding
  // A straggler's late arrivals cost the others at least this share of what all ranks' late
  // arrivals cost, and at least twice what any other rank's cost.
  double straggler_share = 0.5;
};

struct RankSummary {
  int32_t rank = 0;
  std::string path;
  bool aligned = false;       // its clock was aligned through matched collectives
  int64_t offset_ns = 0;      // its clock minus the reference rank's (subtracted when aligning)
  int64_t offset_mad_ns = 0;  // median absolute deviation of the per-instance estimates
  int64_t start_ns = 0, end_ns = 0;  // first and last GPU event, on the reference clock
  uint64_t steps = 0;                // iterations (ProfilerStep#) in its trace
  int64_t step_median_ns = -1;
  int64_t busy_ns = 0;          // GPU time with any work (kernels, copies)
  int64_t compute_ns = 0;       // GPU time with non-communication work
  int64_t comm_ns = 0;          // GPU time in communication kernels
  int64_t comm_exposed_ns = 0;  // communication not overlapped by compute
  int64_t idle_ns = 0;          // span - busy
  uint64_t collectives = 0;     // matched collective instances it took part in
  int64_t wait_ns = 0;          // in collectives, waiting for the last rank to arrive
  int64_t transfer_ns = 0;      // in collectives, after the last rank arrived
  uint64_t last_arrivals = 0;   // instances it arrived last to
  int64_t late_cost_ns = 0;     // what its late arrivals held the group back: its arrival - the
                                // second latest, summed
  bool truncated = false;       // its trace stops early (job_identity.cc): never the straggler
};

struct CollectiveSummary {
  std::string name, group, dtype;
  int64_t bytes = -1;
  int64_t ranks = 0;  // group size (recorded, else ranks seen)
  uint64_t count = 0;
  int64_t time_ns = 0;      // per instance the median rank's kernel time, summed
  int64_t wait_ns = 0;      // per instance the mean rank's wait, summed
  int64_t transfer_ns = 0;  // per instance the transfer time, summed
  double algbw_gbps = -1;   // bytes / transfer time (-1: size not recorded)
  double busbw_gbps = -1;   // algbw x nccl-tests' factor
};

// What a rank did instead while the others waited for it, against the other ranks' median in
// the same compute phases.
enum class CauseKind { kKernel, kHostOp };
// "kernel", "host-op": the JSON's word and the finding's.
std::string_view CauseKindName(CauseKind k);

struct StragglerCause {
  CauseKind kind = CauseKind::kKernel;  // more GPU time in a kernel; its GPU idle, a host op ran
  std::string what;                     // kernel or host op name
  int64_t excess_ns = 0;  // its time beyond the others' median, summed over its late phases
  int64_t rank_ns = 0, others_ns = 0;  // its time and the others' median, summed
};

struct Straggler {
  int32_t rank = 0;
  uint64_t late = 0;                   // instances it arrived last to
  uint64_t instances = 0;              // instances it took part in
  int64_t cost_ns = 0;                 // its late_cost_ns
  int64_t idle_excess_ns = 0;          // its GPU idle beyond the others' in those phases
  std::vector<StragglerCause> causes;  // largest first
};

struct JobReport {
  std::vector<RankSummary> ranks;  // by rank
  int32_t reference_rank = -1;
  int64_t world_size = -1;               // as the traces say (-1: not said)
  uint64_t instances = 0;                // collective instances matched across >= 2 ranks
  uint64_t unmatched_calls = 0;          // collective calls seen on one rank only
  uint64_t point_to_point = 0;           // send/recv calls (not matched: they pair two ranks)
  std::string matched_by;                // "sequence numbers" or "order within each process group"
  std::vector<std::string> notes;        // what could not be done, in words
  int64_t start_ns = 0, span_ns = 0;     // the job's GPU span on the reference clock
  int64_t wait_ns = 0, transfer_ns = 0;  // summed over ranks and instances
  int64_t comm_ns = 0, overlapped_comm_ns = 0;  // over all ranks
  std::vector<CollectiveSummary> collectives;   // by time, largest first
  std::optional<Straggler> straggler;
  // The cross-rank replay (job_replay.h): the job as observed over the replayed ranks, the
  // unchanged replay, and with every reported fix applied.
  int64_t observed_ns = 0, replayed_ns = 0, combined_ns = 0;
  std::vector<Finding> findings;  // by impact, largest first
};

// The job of these ranks' summaries (rank_timeline.h): what the CLI, the Python package and
// gpuscope.distributed.analyze_job all run.
JobReport AnalyzeJob(std::vector<RankTimeline> ranks, const JobOptions& options = {});
// The same from traces in memory: each summarized first.
JobReport AnalyzeJob(const std::vector<RankInput>& ranks, const JobOptions& options = {});

}  // namespace gpuscope::analysis
