// A replay's times per step: the steps' marks on the loop's thread (SetSteps) and each step's
// replayed start and end (StepsDone), so that a fix is priced in each phase's steps.

#include <algorithm>

#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

void ReplayGraph::SetSteps(const std::vector<std::pair<int64_t, int64_t>>& steps) {
  mark_node_.clear(), mark_before_.clear(), step_ops_.clear();
  // The loop's thread: the host lane whose calls launched the most GPU ops.
  std::vector<size_t> launched(lane_track_.size(), 0);
  for (uint32_t v = 0; v < nodes(); ++v)
    if (launch_[v] != kNone) ++launched[lane_[launch_[v]]];
  size_t lane = launched.size();
  for (size_t l = 0; l < launched.size(); ++l) {
    if (lane_is_host_[l] && launched[l] > 0 &&
        (lane == launched.size() || launched[l] > launched[lane]))
      lane = l;
  }
  if (lane == launched.size() || steps.empty()) return;  // no host thread launches
  const std::vector<uint32_t>& ln = lane_nodes_[lane];
  size_t k = 0;
  std::vector<int64_t> starts;
  for (const auto& [s, e] : steps) {
    starts.push_back(s);
    for (int64_t m : {s, e}) {
      while (k < ln.size() && obs_start_[ln[k]] < m) ++k;
      mark_node_.push_back(k < ln.size() ? ln[k] : kNone);
      // Past the thread's last node: at the window's end at the latest.
      mark_before_.push_back(k < ln.size() ? obs_start_[ln[k]] - m
                                           : std::max<int64_t>(0, w0_ + observed_ - m));
    }
  }
  for (uint32_t v = 0; v < nodes(); ++v) {
    if (launch_[v] == kNone || lane_[launch_[v]] != lane) continue;
    const int64_t at = obs_start_[launch_[v]];
    auto step = std::upper_bound(starts.begin(), starts.end(), at) - starts.begin() - 1;
    if (step >= 0) step_ops_.emplace_back(v, static_cast<uint32_t>(step));
  }
}

std::vector<int64_t> ReplayGraph::StepsDone(const std::vector<int64_t>& start,
                                            const std::vector<int64_t>& end,
                                            int64_t window_end) const {
  // The marks' replayed times (2 per step: start, end), then the GPU work of each step.
  std::vector<int64_t> at(mark_node_.size());
  for (size_t k = 0; k < at.size(); ++k) {
    const uint32_t v = mark_node_[k];
    at[k] = (v == kNone ? window_end : start[v]) - mark_before_[k];
  }
  const size_t n = at.size() / 2;
  std::vector<int64_t> gpu_end(n, INT64_MIN);
  for (const auto& [v, step] : step_ops_) gpu_end[step] = std::max(gpu_end[step], end[v]);
  std::vector<int64_t> out(2 * n);
  int64_t done = INT64_MIN;  // of the step before
  for (size_t k = 0; k < n; ++k) {
    const int64_t begin = std::max(at[2 * k], done);
    done = std::max({at[2 * k + 1], gpu_end[k], begin});
    out[2 * k] = begin, out[2 * k + 1] = done;
  }
  return out;
}

}  // namespace gpuscope::analysis
