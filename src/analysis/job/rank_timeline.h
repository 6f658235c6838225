#pragma once
// RankTimeline: all the job analysis (AnalyzeJob) reads of one rank's trace. It grows with the
// rank's collectives - and the distinct names of the work between them - not with its events:
// a rank is summarized where its trace is (SummarizeRank; a Dask worker, or the CLI one rank at
// a time) and only this travels, so the driver of a 1,000-rank job never holds a trace.
//
// Every measure AnalyzeJob takes over a window is kept at the windows' possible ends: those
// ends are the rank's own call boundaries (GPU busy time up to each call's start and end), or
// lie inside a call (the compute beside it, kept clipped to its span). So the job analysis of
// summaries equals the one of traces exactly, not approximately.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/common/intervals.h"
#include "analysis/job/collectives.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// A name's time in one phase: `name` indexes RankTimeline::names.
struct NameTime {
  uint32_t name = 0;
  int64_t ns = 0;
  bool operator==(const NameTime&) const = default;
};

struct RankTimeline {
  int32_t rank = 0;
  std::string path;
  int64_t world_size = -1;   // as the trace says (-1: not said)
  uint64_t kernels = 0;      // kernel count
  uint64_t fingerprint = 0;  // FNV-1a over every kernel's start, duration and name
  uint64_t steps = 0;        // iterations (ProfilerStep#)
  int64_t step_median_ns = -1;
  bool gpu_work = false;              // any kernel or copy
  int64_t first_ns = 0, last_ns = 0;  // GPU span, own clock
  int64_t active_ns = 0;  // its first activity, host or GPU (own clock): where its work starts
  int64_t busy_ns = 0, compute_ns = 0, comm_ns = 0;  // GPU time: any work, non-comm, comm
  int64_t overlapped_comm_ns = 0;                    // communication beside compute

  std::vector<CollectiveCall> calls;  // in time order (FindCollectives)
  // Per call, program order: when the program issued it (never earlier than the previous
  // call's key), the compute kernel time issued after the previous call and before it, and its
  // first kernel's start (one more entry: the work after the last call).
  std::vector<int64_t> issued_ns, work_ns, work_start_ns;
  // Per call: the GPU's busy time from its first work up to the call's start, and to its end.
  std::vector<int64_t> busy_to_start_ns, busy_to_end_ns;
  // Per call: compute after its end, before the next call's start (after the last: the GPU's
  // last work), and within the iteration holding its end.
  std::vector<int64_t> compute_after_ns;
  // Per call c: the compute intervals within its span, merged and clipped, at
  // beside[beside_begin[c], beside_begin[c + 1]).
  std::vector<uint32_t> beside_begin;
  std::vector<Interval> beside;
  // Per call c: kernel time (communication excluded) and host op self time by name, issued
  // before it and after the previous call, at [*_begin[c], *_begin[c + 1]).
  std::vector<std::string> names;
  std::vector<uint32_t> kernel_time_begin, op_time_begin;
  std::vector<NameTime> kernel_time, op_time;

  bool operator==(const RankTimeline&) const = default;
};

// One rank's timeline from its trace.
RankTimeline SummarizeRank(const model::Trace& t, int32_t rank, const std::string& path);

}  // namespace gpuscope::analysis
