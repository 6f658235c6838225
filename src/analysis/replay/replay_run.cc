// One replay of the dependency graph: a fix's edits applied in place, one pass over the order,
// the edits undone; fixes replayed (or their edits measured) side by side on kept workers.

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <utility>

#include "analysis/replay/host_spans.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"
#include "base/gallop.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

void ReplayGraph::Apply(const WhatIf& f, Params& p, Undo& undo) const {
  auto set = [&](auto& slot, auto value) {
    if (slot == value) return;
    undo.Save(slot);
    slot = value;
  };
  auto call = [&](model::RowId r) -> uint32_t {
    if (r >= api_node_.size()) return kNone;
    uint32_t n = api_node_[r];
    return n != kNone && row_[n] == r ? n : kNone;
  };
  for (model::RowId r : f.unblock_api) {
    if (uint32_t n = call(r); n != kNone) set(p.wait[n], kNone);
  }
  for (auto [r, d] : f.api_dur) {
    if (uint32_t n = call(r); n != kNone)
      set(p.dur[n], std::min(p.dur[n], std::max<int64_t>(0, d)));
  }
  auto gpu = [&](const std::vector<uint32_t>& map, size_t row) {
    return row < map.size() ? map[row] : kNone;
  };
  for (auto [r, d] : f.kernel_dur) {
    if (uint32_t n = gpu(kernel_node_, r); n != kNone) set(p.dur[n], std::max<int64_t>(0, d));
  }
  for (auto [r, d] : f.memop_dur) {
    if (uint32_t n = gpu(memop_node_, r); n != kNone) set(p.dur[n], std::max<int64_t>(0, d));
  }
  // A removed op keeps its place in its stream's order (what waited for it now waits for what
  // it waited for) but takes no time there.
  auto remove = [&](uint32_t n) {
    if (n == kNone) return;
    set(p.dur[n], int64_t{0});
    set(p.gap[n], int64_t{0});
    set(p.lat[n], int64_t{0});
  };
  for (size_t r : f.kernels_removed) remove(gpu(kernel_node_, r));
  for (size_t r : f.memops_removed) remove(gpu(memop_node_, r));
  for (size_t r : f.graph_kernels) {
    // A graph replays its kernels back to back: no launch latency, and a dispatch gap behind the
    // kernel before, as the device leaves between queued kernels (a graph does not remove it). A
    // queued kernel keeps its observed gap unless that was late (held by something else); one
    // launched onto an idle stream gets the device's usual gap.
    uint32_t n = gpu(kernel_node_, r);
    if (n == kNone) continue;
    set(p.lat[n], int64_t{0});
    if (!linked_gap_[n] || p.gap[n] > UsualGap(n) + kLateStartNs) set(p.gap[n], UsualGap(n));
  }
  for (size_t r : f.stream_waits_dropped) {
    if (uint32_t n = gpu(kernel_node_, r); n != kNone) set(p.xdep[n], kNone);
  }
  for (size_t r : f.typical_latency) {
    if (uint32_t n = gpu(kernel_node_, r); n != kNone)
      set(p.lat[n], std::min(p.lat[n], UsualLat(n)));
  }
  for (const auto& [r, gap] : f.kernel_gap) {
    if (uint32_t n = gpu(kernel_node_, r); n != kNone) {
      set(p.lat[n], int64_t{0});
      set(p.gap[n], std::max<int64_t>(0, gap));
    }
  }
  for (size_t r : f.typical_latency_memops) {
    if (uint32_t n = gpu(memop_node_, r); n != kNone)
      set(p.lat[n], std::min(p.lat[n], UsualLat(n)));
  }
  std::vector<uint8_t> moved;
  for (size_t r : f.prefetch_memops) {
    uint32_t n = gpu(memop_node_, r);
    if (n == kNone) continue;
    if (moved.empty()) moved.assign(nodes(), 0);
    moved[n] = 1;
    if (launch_[n] != kNone && p.wait[launch_[n]] == n) set(p.wait[launch_[n]], kNone);
  }
  if (!moved.empty()) {
    // Work after a prefetched copy waits for what came before the copy instead; the copy runs
    // on its own stream as soon as it is launched.
    for (const auto& lane : lane_nodes_) {
      for (uint32_t v : lane) {
        uint32_t q = p.lane_prev[v];
        while (q != kNone && moved[q] && !moved[v]) q = p.lane_prev[q];
        if (!moved[v]) set(p.lane_prev[v], q);
      }
      for (uint32_t v : lane) {
        if (moved[v] && launch_[v] != kNone) set(p.lane_prev[v], kNone);
      }
    }
  }
  if (!queues_.empty() && (!f.graph_kernels.empty() || !f.kernels_removed.empty()))
    RequeueLaunches(f, p, undo);
  if (!f.host_scale.empty()) ScaleHost(f, p, undo);
}

void ReplayGraph::ScaleHost(const WhatIf& f, Params& p, Undo& undo) const {
  auto set = [&](int64_t& slot, int64_t value) {
    if (slot == value) return;
    undo.Save(slot);
    slot = value;
  };
  // A track's host lane, by the track's id (tracks are numbered densely); the last lane of a
  // track wins, as a map's would.
  std::vector<uint32_t> lane_of(t_.tracks.size(), kNone);
  for (uint32_t l = 0; l < lane_track_.size(); ++l) {
    if (lane_is_host_[l] && lane_track_[l] < lane_of.size()) lane_of[lane_track_[l]] = l;
  }
  auto lane_for = [&](model::TrackId tr) { return tr < lane_of.size() ? lane_of[tr] : kNone; };
  // Per host lane, its spans, made disjoint where they overlap (DisjointHostSpans): each gap is
  // cut by its overlap with each span, so time under two spans would be cut twice. Counted
  // first: each lane's list grows once.
  std::vector<std::vector<WhatIf::HostScale>> spans(lane_nodes_.size());
  std::vector<size_t> count(lane_nodes_.size(), 0);
  for (const auto& h : f.host_scale)
    if (uint32_t l = lane_for(h.track); l != kNone) ++count[l];
  for (size_t l = 0; l < spans.size(); ++l) spans[l].reserve(count[l]);
  for (const auto& h : f.host_scale)
    if (uint32_t l = lane_for(h.track); l != kNone) spans[l].push_back(h);
  for (size_t l = 0; l < spans.size(); ++l) {
    if (spans[l].empty()) continue;
    spans[l] = DisjointHostSpans(std::move(spans[l]));
    const auto& lane = lane_nodes_[l];
    // The spans are in time order: each one's first node is searched from the one before's,
    // galloping, not over the whole lane (the same node as a binary search of it).
    size_t from = 0;
    for (const auto& h : spans[l]) {
      // A factor above 1 (whatif --host-speedup below 1) lengthens the host's work.
      double cut = 1.0 - std::max(h.factor, 0.0);
      auto first = base::GallopTo(lane, from, [&](uint32_t v) { return obs_end_[v] < h.start_ns; });
      from = static_cast<size_t>(first - lane.begin());
      for (auto v = first; v != lane.end(); ++v) {
        uint32_t n = *v;
        uint32_t q = lane_prev0_[n];
        if ((q == kNone ? obs_start_[n] : obs_end_[q]) >= h.end_ns) break;  // gap starts after
        if (q != kNone) {
          int64_t gs = obs_end_[q], ge = obs_start_[n];
          int64_t cut_ns = static_cast<int64_t>(
              cut * static_cast<double>(Overlap(gs, ge, h.start_ns, h.end_ns)));
          set(p.gap[n], std::max<int64_t>(0, p.gap[n] - cut_ns));
        }
        if (h.calls && kind_[n] == Kind::kCall && p.wait[n] == kNone) {
          int64_t cut_ns = static_cast<int64_t>(
              cut * static_cast<double>(Overlap(obs_start_[n], obs_end_[n], h.start_ns, h.end_ns)));
          set(p.dur[n], std::max<int64_t>(0, p.dur[n] - cut_ns));
        }
      }
    }
  }
}

void ReplayGraph::RequeueLaunches(const WhatIf& f, Params& p, Undo& undo) const {
  // Kernels a fix removes take no entry; launches captured into a graph, one back to back with
  // the one before, share theirs. Each remaining launch waits for the entry `depth` before it
  // in the new numbering.
  std::vector<uint8_t> gone(nodes(), 0), graph(nodes(), 0);
  for (size_t r : f.kernels_removed)
    if (r < kernel_node_.size() && kernel_node_[r] != kNone) gone[kernel_node_[r]] = 1;
  for (size_t r : f.graph_kernels)
    if (r < kernel_node_.size() && kernel_node_[r] != kNone) graph[kernel_node_[r]] = 1;
  for (const LaunchQueue& q : queues_) {
    std::vector<uint32_t> last;  // per new entry, its op that ends last
    bool prev_graph = false;
    for (const QueueEntry& e : q.entries) {
      const uint32_t call = e.call, op = e.last;
      if (gone[op]) continue;
      bool in_graph = graph[op] != 0;
      if (in_graph && prev_graph && !last.empty()) {
        if (obs_end_[op] > obs_end_[last.back()]) last.back() = op;
        if (p.wait[call] != kNone) {
          undo.Save(p.wait[call]);
          p.wait[call] = kNone;
        }
        continue;
      }
      prev_graph = in_graph;
      last.push_back(op);
      uint32_t want = last.size() > q.depth ? last[last.size() - 1 - q.depth] : kNone;
      // Only the calls the queue held wait for it (InferLaunchQueue).
      if (e.waits && p.wait[call] != kNone && p.wait[call] != want) {
        undo.Save(p.wait[call]);
        p.wait[call] = want;
      }
    }
  }
}

inline int64_t ReplayGraph::StartOf(uint32_t v, const Params& p, const std::vector<int64_t>& start,
                                    const std::vector<int64_t>& end) const {
  int64_t s = floor_[v];
  if (p.lane_prev[v] != kNone)
    s = std::max(s, end[p.lane_prev[v]] + (UsesGap(v, p) ? p.gap[v] : 0));
  if (launch_[v] != kNone) s = std::max(s, start[launch_[v]] + p.lat[v]);
  if (p.xdep[v] != kNone) {
    s = std::max(s, end[p.xdep[v]] + xoff_[v]);
    if (has_more_[v]) {
      for (const auto& [x, off] : more_waits_.at(v)) s = std::max(s, end[x] + off);
    }
  }
  return s == kNoFloor ? obs_start_[v] : s;
}

inline int64_t ReplayGraph::EndOf(uint32_t v, const Params& p, const std::vector<int64_t>& start,
                                  const std::vector<int64_t>& end) const {
  int64_t e = start[v] + p.dur[v];
  if (p.wait[v] != kNone) e = std::max(e, end[p.wait[v]] + post_[v]);
  return e;
}

uint32_t ReplayGraph::LastMeasured(const std::vector<int64_t>& end) const {
  uint32_t last = kNone;
  for (uint32_t v = 0; v < nodes(); ++v) {
    if (measured_[v] && (last == kNone || end[v] > end[last])) last = v;
  }
  return last;
}

template <typename Job>
void ReplayGraph::OnWorkers(size_t workers, const Job& job) const {
  // The copies are made here, before worker 0 starts editing the graph's own parameters; once,
  // then kept for the next call.
  while (workers_.size() + 1 < workers) workers_.push_back({base_, {}, {}, {}});
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> failed(workers);
  for (size_t k = 1; k < workers; ++k) {
    pool.emplace_back([&, k] {
      try {
        Workspace& w = workers_[k - 1];
        job(k, w.p, w.start, w.end, w.undo);
      } catch (...) {
        failed[k] = std::current_exception();
      }
    });
  }
  try {
    job(0, base_, start_, end_, undo_);
  } catch (...) {
    failed[0] = std::current_exception();
  }
  for (auto& th : pool) th.join();
  for (auto& e : failed) {
    if (!e) continue;
    workers_.clear();           // a job cut short may have left its parameters edited
    std::rethrow_exception(e);  // out of memory on any worker: one line in main
  }
}

std::vector<size_t> ReplayGraph::Given(const std::vector<const WhatIf*>& fixes) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < fixes.size(); ++i)
    if (fixes[i]) todo.push_back(i);
  std::stable_sort(todo.begin(), todo.end(),
                   [&](size_t a, size_t b) { return fixes[a]->Edits() > fixes[b]->Edits(); });
  return todo;
}

size_t ReplayGraph::WorkersFor(int threads, size_t jobs) {
  return std::clamp<size_t>(static_cast<size_t>(std::max(1, threads)), 1,
                            std::max<size_t>(1, jobs));
}

int64_t ReplayGraph::EditsRemove(const WhatIf& fix, Params& p, Undo& undo,
                                 std::vector<uint32_t>& touched, std::vector<uint8_t>& seen) const {
  // The node a parameter slot belongs to (kNone: not a per-node column).
  auto node_of = [&](const auto* slot) -> uint32_t {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(slot)>>;
    for (const std::vector<T>* col : Columns<T>(p)) {
      if (!col->empty() && slot >= col->data() && slot < col->data() + col->size())
        return static_cast<uint32_t>(slot - col->data());
    }
    return kNone;
  };
  Apply(fix, p, undo);
  // Each edited node once (a sum: the order does not matter), marked in `seen`, unmarked after.
  touched.clear();
  seen.resize(nodes(), 0);
  auto touch = [&](uint32_t v) {
    if (v != kNone && !seen[v]) seen[v] = 1, touched.push_back(v);
  };
  for (const auto& [slot, old] : undo.i64) touch(node_of(slot));
  for (const auto& [slot, old] : undo.u32) touch(node_of(slot));
  int64_t removed = 0;
  for (uint32_t v : touched) {
    seen[v] = 0;
    removed += std::max<int64_t>(0, start_[v] - StartOf(v, p, start_, end_)) +
               std::max<int64_t>(0, end_[v] - EndOf(v, p, start_, end_));
  }
  undo.Restore();
  return removed;
}

std::vector<int64_t> ReplayGraph::EditsRemoveNs(const std::vector<const WhatIf*>& fixes,
                                                int threads) const {
  std::vector<int64_t> out(fixes.size(), 0);
  if (nodes() == 0 || order_.empty()) return out;  // unordered: replays are the observed times
  Replay(nullptr);
  // The unchanged replay's times (start_, end_) are read by every worker: EditsRemove applies
  // and undoes edits, never replays.
  const std::vector<size_t> todo = Given(fixes);
  const size_t workers = WorkersFor(threads, todo.size());
  std::atomic<size_t> next{0};
  OnWorkers(workers,
            [&](size_t, Params& p, std::vector<int64_t>&, std::vector<int64_t>&, Undo& undo) {
              std::vector<uint32_t> touched;  // kept from fix to fix, as the undo is
              std::vector<uint8_t> seen;
              for (size_t j; (j = next.fetch_add(1)) < todo.size();)
                out[todo[j]] = EditsRemove(*fixes[todo[j]], p, undo, touched, seen);
            });
  return out;
}

std::vector<PathSegment> ReplayGraph::CriticalSegments() const {
  std::vector<PathSegment> segments;
  Replay(nullptr);
  uint32_t last = LastMeasured(end_);
  ReplayResult unused;
  if (last != kNone) WalkPath(base_, start_, end_, last, unused, &segments);
  return segments;
}

ReplayResult ReplayGraph::Replay(const WhatIf* fix, bool with_path) const {
  return ReplayInto(fix, with_path, base_, start_, end_, undo_);
}

std::vector<int64_t> ReplayGraph::ReplayWindows(const std::vector<const WhatIf*>& fixes,
                                                int threads,
                                                std::vector<std::vector<int64_t>>* steps) const {
  std::vector<int64_t> out(fixes.size(), -1);
  if (steps) steps->assign(fixes.size(), {});
  const std::vector<size_t> todo = Given(fixes);
  const size_t workers = WorkersFor(threads, todo.size());
  // Each worker replays the next fix not taken (a replay edits its parameters in place).
  std::atomic<size_t> next{0};
  OnWorkers(workers, [&](size_t, Params& p, std::vector<int64_t>& start, std::vector<int64_t>& end,
                         Undo& undo) {
    for (size_t j; (j = next.fetch_add(1)) < todo.size();) {
      ReplayResult r = ReplayInto(fixes[todo[j]], false, p, start, end, undo);
      out[todo[j]] = r.window_ns;
      if (steps) (*steps)[todo[j]] = std::move(r.steps_ns);
    }
  });
  return out;
}

ReplayResult ReplayGraph::ReplayInto(const WhatIf* fix, bool with_path, Params& p,
                                     std::vector<int64_t>& start, std::vector<int64_t>& end,
                                     Undo& undo) const {
  ReplayResult out;
  const size_t n = nodes();
  if (n == 0) return out;
  // The fix edits the parameters in place and the edits are undone after the pass: replays
  // cost one pass over the order, not a copy of every column.
  if (fix) Apply(*fix, p, undo);
  // The graph's own buffers may still hold the unchanged replay: then it is not run again.
  const bool own = &start == &start_;
  if (!(own && !fix && unchanged_)) {
    if (own) unchanged_ = false;
    start.resize(n), end.resize(n);
    if (order_.empty()) {  // could not be ordered: the observed times
      for (size_t v = 0; v < n; ++v) start[v] = obs_start_[v], end[v] = obs_end_[v];
    }
    for (uint32_t pt : order_) {
      uint32_t v = pt >> 1;
      if ((pt & 1) == 0)
        start[v] = StartOf(v, p, start, end);
      else
        end[v] = EndOf(v, p, start, end);
    }
    if (own) unchanged_ = !fix;
  }
  uint32_t last = LastMeasured(end);
  if (last != kNone) {
    out.window_ns = end[last] - w0_;
    if (with_path) WalkPath(p, start, end, last, out);
  }
  if (!mark_node_.empty()) out.steps_ns = StepsDone(start, end, w0_ + out.window_ns);
  undo.Restore();
  return out;
}

}  // namespace gpuscope::analysis
