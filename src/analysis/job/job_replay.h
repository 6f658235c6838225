#pragma once
// ReplayJob: the job's cross-rank dependencies replayed, to price a fix of a distributed run.
// Each rank is a chain of compute phases and collectives. A collective ends at its group's last
// arrival plus the transfer, and a rank's collectives run one after another. When the rank's
// compute waited for its previous collective (nothing ran beside its transfer), the phase starts
// at that collective's end and lasts what it took (host gaps included); else the rank's compute
// went on beside it and the phase is its compute work, from where its compute had got to.
// Replaying with phases shortened (a straggler's extra work gone, work balanced across ranks) or
// collectives' transfers detached from the compute after them (communication overlapped: the
// compute still starts no earlier than the group's last arrival - the ranks still meet there -
// but no longer waits for the transfer) gives the job's new length; the difference to the
// unchanged replay is the saving. Overlap hides transfer time only: the waiting for a late
// rank stays (it is collective-skew's and rank-straggler's).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscope::analysis {

struct JobTimeline {
  struct Call {
    size_t instance = 0;     // index into transfer_ns
    int64_t phase_ns = 0;    // from the previous collective's end (or the start) to the arrival
    int64_t work_ns = 0;     // the compute issued before it (after the previous collective)
    int64_t end_dev_ns = 0;  // its end - (last arrival + transfer): ranks leave a little apart
    // The compute before it waited for the previous collective's end; false: it ran beside it
    // (the phase is then work_ns from where the rank's compute was). The first call's phase
    // counts from the rank's start.
    bool after_end = true;
  };
  struct Rank {
    int64_t start_ns = 0;  // on the reference clock
    int64_t tail_ns = 0;   // after its last collective's end (or its arrival, when beside it)
    bool tail_after_end = true;
    std::vector<Call> calls;
  };
  std::vector<Rank> ranks;
  std::vector<int64_t> transfer_ns;  // per instance
};

// What a fix changes: time cut from a rank's phase before a call; calls whose following phase
// (the next call's, or the tail) no longer waits for their transfer (only for the last arrival).
struct JobFix {
  std::vector<std::vector<int64_t>> phase_cut;  // [rank][call]; empty = none
  std::vector<std::vector<uint8_t>> detach;     // [rank][call]; empty = none
};

// The replayed job's length (last rank's end - first rank's start); -1 when the ranks' orders of
// collectives cannot be replayed (a rank waits on an instance another rank reaches only later).
int64_t ReplayJob(const JobTimeline& timeline, const JobFix* fix = nullptr);

}  // namespace gpuscope::analysis
