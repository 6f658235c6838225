#pragma once
// What the parts of AnalyzeJob (job.cc) share: each rank's collectives and GPU time, the matched
// instances, the timeline the replay prices fixes on. Internal to src/analysis/job.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/common/intervals.h"
#include "analysis/job/collectives.h"
#include "analysis/job/job.h"
#include "analysis/job/job_replay.h"
#include "analysis/job/rank_timeline.h"

namespace gpuscope::analysis::job_internal {

int64_t Median(std::vector<int64_t> v);

// One rank as the driver sees it: its summary, and which matched instance each call is.
struct RankData : RankTimeline {
  std::vector<size_t> instance_of;  // per call: instance index or SIZE_MAX
};

// One collective as every rank that took part ran it.
struct Instance {
  std::vector<std::pair<size_t, size_t>> members;  // (rank index, call index)
  // Filled once clocks are aligned (reference clock), over the aligned members.
  std::vector<std::pair<size_t, size_t>> aligned;
  int64_t last_arrival = 0, second_arrival = 0, mean_arrival = 0, transfer_ns = 0;
  size_t last_rank = SIZE_MAX;  // rank index
};

// job_ranks.cc: matching the ranks' collectives, aligning their clocks.
std::vector<Instance> MatchInstances(std::vector<RankData>& ranks, JobReport& rep);
void AlignClocks(std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                 JobReport& rep);
void MeasureInstances(const std::vector<RankData>& ranks, std::vector<Instance>& instances,
                      JobReport& rep);

// job_identity.cc: notes on files that cannot be ranks of one job (the same events under two
// ranks, world sizes that disagree or that the files contradict) and ranks whose trace stops
// early (marked truncated). Needs each rank's GPU span and collective calls.
void CheckIdentity(const std::vector<RankData>& ranks, JobReport& rep);

// job_causes.cc: what the straggler (rank index k) did instead. `origin`: where the job's work
// starts (reference clock), the first phase's start on every rank.
void FindCauses(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                const JobReport& rep, int64_t origin, Straggler& st, size_t k);

// job_pricing.cc: the timeline to replay, and the findings priced on it.
struct JobModel {
  JobTimeline tl;
  std::vector<size_t> tl_rank;  // rank index -> timeline rank (SIZE_MAX: not replayed)
  std::vector<std::vector<std::pair<size_t, size_t>>> members_at;  // per instance: (tl, pos)
  std::vector<std::vector<uint8_t>> hideable;  // [tl][pos]: exposed, with compute after it
  // [tl][pos]: the rank's own time in the phase - its compute (program order) and its GPU's
  // idle time in the phase's window (a busy host) - which the fixes balance.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> own;
  int64_t exposed_ns_total = 0;  // exposed transfer, summed over ranks, hideable or not
  // The most exposed transfer one rank could hide (summed over its hideable calls): overlap
  // hides transfers, so the job saves at most this much by it.
  int64_t hideable_rank_max_ns = 0;
};
// Also fills the ranks' collective counts, waits, transfers and late arrivals, and the job's.
JobModel BuildTimeline(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                       int64_t origin, JobReport& rep);
// `k`: the straggler's rank index (SIZE_MAX: none).
void PriceFindings(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                   const JobModel& m, size_t k, const JobOptions& options, JobReport& rep);

}  // namespace gpuscope::analysis::job_internal
