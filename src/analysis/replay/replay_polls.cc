// Host waits the trace does not name (issue 51): a thread that sat in no op, frame or call while
// the GPU ran the work it had launched, and went on right as that work ended, was waiting for
// it - spinning on a flag the kernel writes (DeepEP's dispatch), polling an event, or in a sync
// the tracer did not record. The replay makes such a gap a wait for that op instead of host
// work, so that faster (or slower) GPU work moves the host with it.

#include <algorithm>

#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

namespace {

// The GPU must run this share of the gap's untraced part: the host waited while it worked.
constexpr double kPollBusyShare = 0.9;
// Launches looked back over for the op the host waited for (the last one on each stream).
constexpr int kPollLookBack = 256;

}  // namespace

void ReplayGraph::InferPolls() {
  // The GPU's busy time in the window (all streams), and each GPU node's place on its stream.
  std::vector<Interval> busy;
  std::vector<uint32_t> pos(nodes(), kNone);
  size_t gpu_nodes = 0;
  for (uint32_t lane = 0; lane < lane_nodes_.size(); ++lane)
    gpu_nodes += lane_is_host_[lane] ? 0 : lane_nodes_[lane].size();
  busy.reserve(gpu_nodes);
  for (uint32_t lane = 0; lane < lane_nodes_.size(); ++lane) {
    if (lane_is_host_[lane]) continue;
    for (uint32_t i = 0; i < lane_nodes_[lane].size(); ++i) {
      uint32_t g = lane_nodes_[lane][i];
      pos[g] = i;
      busy.emplace_back(obs_start_[g], obs_end_[g]);
    }
  }
  if (busy.empty()) return;
  MergeIntervals(busy);
  // Per host lane, the GPU ops it launched, by their launch call's start.
  std::vector<std::vector<uint32_t>> launched(lane_track_.size());
  for (uint32_t g = 0; g < nodes(); ++g)
    if (pos[g] != kNone && launch_[g] != kNone) launched[lane_[launch_[g]]].push_back(g);
  // The Python frames of a track go to its last host lane.
  std::map<model::TrackId, uint32_t> host_lane;
  for (uint32_t lane = 0; lane < lane_track_.size(); ++lane)
    if (lane_is_host_[lane]) host_lane[lane_track_[lane]] = lane;
  // One launching host lane at a time, its ops and Python frames: the thread's traced work
  // (annotations are not work). One buffer, its capacity kept: buffers for every lane at once
  // cost 16 bytes per op and frame of the trace in fresh pages.
  std::vector<Interval> work;
  for (uint32_t lane = 0; lane < lane_track_.size(); ++lane) {
    if (!lane_is_host_[lane] || launched[lane].empty()) continue;
    work.clear();
    for (uint32_t r : lane_cpu_[lane])
      if (t_.cpu.kind[r] == model::CpuRangeKind::kOp)
        AppendMerged(work, 0, t_.cpu.start_ns[r], t_.cpu.end_ns(r));
    const size_t ops_end = work.size();  // where the lane's Python frames begin
    const model::TrackId track = lane_track_[lane];
    if (host_lane[track] == lane) {
      for (size_t i = 0; i < t_.python.size(); ++i)
        if (t_.python.track[i] == track)
          AppendMerged(work, ops_end, t_.python.start_ns[i], t_.python.end_ns(i));
    }
    MergeIntervalRuns(work, ops_end);
    auto& ops = launched[lane];
    std::sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
      return obs_start_[launch_[a]] != obs_start_[launch_[b]]
                 ? obs_start_[launch_[a]] < obs_start_[launch_[b]]
                 : obs_start_[a] < obs_start_[b];
    });
    for (uint32_t n : lane_nodes_[lane]) {
      const uint32_t prev = base_.lane_prev[n];
      if (prev == kNone || base_.xdep[n] != kNone || base_.gap[n] < kHandoffIdleNs) continue;
      const int64_t a = obs_end_[prev], b = obs_start_[n];
      const int64_t untraced = (b - a) - CoveredWithin(work, a, b);
      if (untraced < kHandoffIdleNs || 2 * untraced < b - a || untraced > base_.gap[n]) continue;
      if (static_cast<double>(CoveredWithin(busy, a, b)) <
          kPollBusyShare * static_cast<double>(b - a))
        continue;
      // The op the host waited for: the last one it launched on a stream before the gap, ending
      // as the host went on, with nothing queued after it on its stream until then.
      auto it = std::upper_bound(ops.begin(), ops.end(), a,
                                 [&](int64_t v, uint32_t g) { return v < obs_end_[launch_[g]]; });
      std::vector<uint32_t> seen_lanes;
      uint32_t best = kNone;
      int64_t best_off = 0;
      for (int k = 0; it != ops.begin() && k < kPollLookBack; ++k) {
        const uint32_t g = *--it;
        if (obs_end_[launch_[g]] > a) continue;
        if (std::find(seen_lanes.begin(), seen_lanes.end(), lane_[g]) != seen_lanes.end()) continue;
        seen_lanes.push_back(lane_[g]);
        const int64_t off = b - obs_end_[g];
        const int64_t tol = std::max(kStreamHandoffNs, (obs_end_[g] - obs_start_[g]) / 10);
        if (std::abs(off) > tol || obs_end_[g] <= a) continue;
        const auto& stream = lane_nodes_[lane_[g]];
        if (pos[g] + 1 < stream.size()) {
          const uint32_t next = stream[pos[g] + 1];
          if (launch_[next] == kNone || obs_start_[launch_[next]] < b) continue;
        }
        if (best == kNone || std::abs(off) < std::abs(best_off)) best = g, best_off = off;
      }
      if (best == kNone) continue;
      base_.xdep[n] = best;
      xoff_[n] = best_off;
      base_.gap[n] -= untraced;
      ++inferred_polls_;
    }
  }
}

}  // namespace gpuscope::analysis
