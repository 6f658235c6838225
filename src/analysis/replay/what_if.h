#pragma once
// A fix as a transformation of the run's dependency graph (see replay_graph.h): what a rule
// says would change if its problem were fixed, in terms of the trace's own rows, so that the
// replay can measure the saving instead of a rule guessing it. Rules fill it; the replay graph
// applies it.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/ids.h"

namespace gpuscope::analysis {

struct WhatIf {
  std::string what;  // the change in words ("the host no longer waits in these calls")
  // Host time on one thread inside [start_ns, end_ns) - the calls and the work between them -
  // multiplied by `factor` (0: the work leaves the thread, e.g. data loading in workers).
  struct HostScale {
    model::TrackId track = 0;
    int64_t start_ns = 0, end_ns = 0;
    double factor = 1;
    // Whether the runtime calls inside scale too (the host's own work in them), or only the
    // work between them (whatif --host-speedup: the runtime costs what it costs).
    bool calls = true;
  };
  std::vector<model::RowId> unblock_api;  // calls that no longer wait for GPU work (sync dropped)
  std::vector<std::pair<model::RowId, int64_t>> api_dur;  // call -> new duration
  std::vector<std::pair<size_t, int64_t>> kernel_dur;     // kernel row -> new duration
  std::vector<std::pair<size_t, int64_t>> memop_dur;      // copy/memset row -> new duration
  std::vector<size_t> prefetch_memops;  // copies moved to a side stream, issued ahead: the work
                                        // after them on their stream no longer waits for them
  std::vector<size_t> graph_kernels;    // kernels launched back to back (graph capture): no
                                        // launch latency beyond their stream's order
  std::vector<HostScale> host_scale;
  // Kernels whose launch-to-start time becomes the device's typical launch latency (a first
  // launch that loaded its module, done before the window).
  std::vector<size_t> typical_latency;
  std::vector<size_t> typical_latency_memops;  // the same, copies and memsets
  // Kernels that follow the one before them on their stream after `gap` (a tracer's spacing of a
  // graph's kernels taken out), with no launch latency of their own: kernel row -> gap.
  std::vector<std::pair<size_t, int64_t>> kernel_gap;
  // Kernels that no longer wait for an op of another stream (the event wait between streams the
  // replay inferred, replay_graph_internal.h kLateStartNs): they run beside it.
  std::vector<size_t> stream_waits_dropped;
  // GPU ops that no longer run (a copy the program does not need): no time, no dispatch gap and
  // no launch latency of their own; the op after one on its stream keeps its own gap.
  std::vector<size_t> kernels_removed;
  std::vector<size_t> memops_removed;

  bool empty() const {
    return unblock_api.empty() && api_dur.empty() && kernel_dur.empty() && memop_dur.empty() &&
           prefetch_memops.empty() && graph_kernels.empty() && host_scale.empty() &&
           typical_latency.empty() && typical_latency_memops.empty() && kernel_gap.empty() &&
           stream_waits_dropped.empty() && kernels_removed.empty() && memops_removed.empty();
  }
  // Adds every change of `other` (for the combined what-if of several fixes).
  void Merge(const WhatIf& other);
  // The edits in words and counts ("12 calls stop waiting, 3 copy durations changed").
  std::string Describe() const;
  // How many edits it holds: what applying it costs, roughly (the longest replays first).
  size_t Edits() const;
  // Orders host_scale by start (a stable sort, skipped where already in order): the spans a
  // replay makes apart are then read in one pass, not merged run by run at every replay. The
  // fix is the same (host_spans.h: the spans are a set).
  void SortHostSpans();
};

}  // namespace gpuscope::analysis
