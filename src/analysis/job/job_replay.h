#pragma once
// ReplayJob: the job's cross-rank dependencies replayed, to price a fix of a distributed run.
// Each rank is a chain: a compute phase (its own work, whatever it is), then a collective it
// cannot leave before the last member of the group has arrived, then the next phase. Replaying
// the chain with a phase shortened (a straggler's extra work gone, work balanced across ranks)
// or a transfer shortened (communication hidden behind compute) gives the job's new length; the
// difference to the unchanged replay is what the fix saves.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscope::analysis {

struct JobTimeline {
  struct Call {
    size_t instance = 0;     // index into transfer_ns
    int64_t phase_ns = 0;    // from the rank's previous collective's end (or its start) to arrival
    int64_t end_dev_ns = 0;  // its end - (last arrival + transfer): ranks leave a little apart
  };
  struct Rank {
    int64_t start_ns = 0;  // on the reference clock
    int64_t tail_ns = 0;   // after its last collective
    std::vector<Call> calls;
  };
  std::vector<Rank> ranks;
  std::vector<int64_t> transfer_ns;  // per instance
};

// What a fix changes: time cut from a rank's phase before a call, and from an instance's transfer.
struct JobFix {
  std::vector<std::vector<int64_t>> phase_cut;  // [rank][call]; empty = none
  std::vector<int64_t> transfer_cut;            // [instance]; empty = none
};

// The replayed job's length (last rank's end - first rank's start); -1 when the ranks' orders of
// collectives cannot be replayed (a rank waits on an instance another rank reaches only later).
int64_t ReplayJob(const JobTimeline& timeline, const JobFix* fix = nullptr);

}  // namespace gpuscope::analysis
