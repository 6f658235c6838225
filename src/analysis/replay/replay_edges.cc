// The edges of the dependency graph beyond its rows' order: waits of host calls, waits between
// streams (recorded, else inferred; WaitForOp adds one), and the topological order of its points.

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

void ReplayGraph::InferWaits() {
  std::vector<uint32_t> gpu;  // GPU nodes by observed end
  for (uint32_t n = 0; n < nodes(); ++n) {
    if (kind_[n] == Kind::kKernel || kind_[n] == Kind::kCopy) gpu.push_back(n);
  }
  std::sort(gpu.begin(), gpu.end(),
            [&](uint32_t a, uint32_t b) { return obs_end_[a] < obs_end_[b]; });
  // An async copy call whose copy is known to be pinned (or device to device) does not block,
  // even when a small copy happens to finish before the call returns.
  std::vector<uint8_t> nonblocking(nodes(), 0);
  for (uint32_t g : gpu) {
    if (kind_[g] != Kind::kCopy || launch_[g] == kNone) continue;
    const auto& mo = t_.memops;
    model::MemoryKind host =
        mo.kind[row_[g]] == model::MemopKind::kHtoD ? mo.src[row_[g]] : mo.dst[row_[g]];
    bool host_side =
        mo.kind[row_[g]] == model::MemopKind::kHtoD || mo.kind[row_[g]] == model::MemopKind::kDtoH;
    if (!host_side || host == model::MemoryKind::kPinned) nonblocking[launch_[g]] = 1;
  }
  // A launch call far longer than the thread's usual one was held by a full launch queue: it
  // returned when a queued GPU op finished (a GPU-bound run whose host ran ahead).
  std::vector<int64_t> usual_launch(lane_track_.size(), 0);
  NameMemo launch(t_, IsLaunchApi);  // by name, once per distinct name (name_memo.h)
  {
    std::vector<std::vector<int64_t>> d(lane_track_.size());
    for (uint32_t n = 0; n < nodes(); ++n) {
      if (kind_[n] == Kind::kCall && launch(t_.api.name[row_[n]]))
        d[lane_[n]].push_back(obs_end_[n] - obs_start_[n]);
    }
    for (size_t l = 0; l < d.size(); ++l) {
      if (d[l].empty()) continue;
      std::nth_element(d[l].begin(), d[l].begin() + static_cast<long>(d[l].size() / 2), d[l].end());
      usual_launch[l] = d[l][d[l].size() / 2];
    }
  }
  std::vector<uint8_t> queued = InferLaunchQueue(gpu, usual_launch);
  NameMemo may_wait(t_, [](std::string_view name) {
    return IsSyncApi(name) || IsCopyApi(name) || IsDeviceFreeApi(name);
  });
  for (uint32_t n = 0; n < nodes(); ++n) {
    if (kind_[n] != Kind::kCall || queued[n]) continue;
    const model::StringId id = t_.api.name[row_[n]];
    bool held_launch = usual_launch[lane_[n]] > 0 &&
                       obs_end_[n] - obs_start_[n] > 4 * usual_launch[lane_[n]] + kQueuedSlackNs &&
                       launch(id);
    if (!held_launch && !may_wait(id)) continue;
    std::string_view name = t_.str(id);
    if (nonblocking[n] && name.find("Async") != std::string_view::npos) continue;
    // The last op that ended inside the call and was launched before the call returned (from
    // this thread: no later than the call itself, so that the graph stays acyclic); else one
    // that ended just after it (GPU timestamps a few us off the host's: the call returned when
    // it ended).
    int64_t s = obs_start_[n], e = obs_end_[n];
    uint32_t g = WaitedFor(gpu, n, s, e, e);
    if (g == kNone) g = WaitedFor(gpu, n, e, e + kSyncSkewNs, e);
    if (g == kNone &&
        (name.find("DeviceSynchronize") != std::string_view::npos || IsDeviceFreeApi(name))) {
      // A device-wide synchronization waits for all the work launched before it, even when that
      // was done before it was called (an .item() just before drained the GPU): it ends no
      // sooner than that work does (no return latency: it did not bind here), so that a fix
      // that lets the host reach it earlier finds it waiting.
      g = WaitedFor(gpu, n, std::numeric_limits<int64_t>::min(), s, s);
      if (g == kNone) continue;
      base_.wait[n] = g;
      post_[n] = 0;
      ++inferred_waits_;
      continue;
    }
    if (g == kNone) continue;
    base_.wait[n] = g;
    post_[n] = e - obs_end_[g];
    // A held launch keeps at least the thread's usual launch as its own time (see
    // InferLaunchQueue); a synchronize's own time is its return latency.
    base_.dur[n] = held_launch ? std::min(base_.dur[n], std::max(post_[n], usual_launch[lane_[n]]))
                               : std::clamp<int64_t>(post_[n], 0, base_.dur[n]);
    ++inferred_waits_;
  }
}

// The shallowest launch queue believed: fewer ops in flight when a held call returned means it
// was held by something else.
constexpr int64_t kMinLaunchQueue = 8;
// The deepest believed (entries counted back from a held call), and how many held calls are
// enough to read the depth from.
constexpr size_t kMaxLaunchQueue = 1 << 14;
constexpr size_t kDepthSamples = 256;

std::vector<uint8_t> ReplayGraph::InferLaunchQueue(const std::vector<uint32_t>& gpu,
                                                   const std::vector<int64_t>& usual_launch) {
  std::vector<uint8_t> done(nodes(), 0);
  // Per host thread, its launch calls in order, each with the end of the work it queued (a
  // graph launch is one entry, ending with its last op).
  using Entry = QueueEntry;
  std::vector<std::vector<Entry>> entries(lane_track_.size());
  std::vector<int64_t> entry_of(nodes(), -1);  // launch call -> index in its lane's entries
  NameMemo launch(t_, IsLaunchApi);
  for (uint32_t v = 0; v < nodes(); ++v) {
    if ((kind_[v] != Kind::kKernel && kind_[v] != Kind::kCopy) || launch_[v] == kNone) continue;
    uint32_t n = launch_[v];
    if (!launch(t_.api.name[row_[n]])) continue;
    auto& list = entries[lane_[n]];
    if (entry_of[n] < 0) {
      entry_of[n] = static_cast<int64_t>(list.size());
      list.push_back({n, v, false});
    } else if (obs_end_[v] > obs_end_[list[static_cast<size_t>(entry_of[n])].last]) {
      list[static_cast<size_t>(entry_of[n])].last = v;
    }
  }
  for (size_t l = 0; l < entries.size(); ++l) {
    auto& list = entries[l];
    if (list.size() < 8 || usual_launch[l] <= 0) continue;
    std::sort(list.begin(), list.end(), [&](const Entry& a, const Entry& b) {
      return obs_start_[a.call] != obs_start_[b.call] ? obs_start_[a.call] < obs_start_[b.call]
                                                      : a.call < b.call;
    });
    // The queue's depth from the calls held far longer than the thread's usual launch: when one
    // returned, the op that freed its slot had just ended and the entries before it still in
    // flight filled the rest of the queue.
    // A sample of them is enough (at most kDepthSamples, evenly spread), each counting back at
    // most kMaxLaunchQueue entries: a GPU-bound trace holds most of its million launches.
    std::vector<size_t> long_calls;
    for (size_t i = 0; i < list.size(); ++i) {
      uint32_t n = list[i].call;
      if (obs_end_[n] - obs_start_[n] > 4 * usual_launch[l] + kQueuedSlackNs)
        long_calls.push_back(i);
    }
    const size_t stride = std::max<size_t>(1, long_calls.size() / kDepthSamples);
    std::vector<int64_t> depths;
    for (size_t h = 0; h < long_calls.size(); h += stride) {
      size_t i = long_calls[h];
      uint32_t n = list[i].call;
      int64_t e = obs_end_[n];
      uint32_t g = WaitedFor(gpu, n, obs_start_[n], e, e);
      if (g == kNone) continue;
      int64_t in_flight = 0;
      for (size_t j = i; j-- > 0 && i - j <= kMaxLaunchQueue;)
        in_flight += obs_end_[list[j].last] > obs_end_[g];
      // A call held with few ops in flight was held by something else (a module load, a
      // lock): no driver's queue is that shallow.
      if (in_flight + 1 >= kMinLaunchQueue) depths.push_back(in_flight + 1);
    }
    if (depths.size() < 3) continue;
    std::nth_element(depths.begin(), depths.begin() + static_cast<long>(depths.size() / 2),
                     depths.end());
    const auto q = static_cast<size_t>(depths[depths.size() / 2]);
    // A queue is a fixed depth: most held calls must agree on it (within 10%).
    size_t agree = 0;
    for (int64_t d : depths)
      agree += std::abs(d - static_cast<int64_t>(q)) <= std::max<int64_t>(1, d / 10);
    if (agree < 3 || 2 * agree < depths.size()) continue;
    // Every launch of the thread waits for the entry q launches earlier: held by it when it
    // returned shortly after that entry ended (its own time then starts there), else the edge
    // only holds a replay in which the host runs ahead.
    queues_.push_back({q, {}});
    queues_.back().entries = list;
    for (size_t i = q; i < list.size(); ++i) {
      uint32_t n = list[i].call, g = list[i - q].last;
      if (base_.wait[n] != kNone) continue;
      int64_t e = obs_end_[n], after = e - obs_end_[g];
      done[n] = 1;
      // Held: longer than the thread's usual launch, and returned shortly after the entry's end
      // (a call that merely overlapped it keeps its own time: the edge must not shorten it).
      bool held = e - obs_start_[n] > usual_launch[l] + kQueuedSlackNs &&
                  obs_end_[g] > obs_start_[n] && after >= 0 &&
                  after <= usual_launch[l] + kSyncSkewNs;
      if (held) {
        base_.wait[n] = g;
        // Its own time is at least the thread's quickest launches: GPU timestamps a few us off
        // the host's make `after` short, and a faster GPU must not make the call cheaper.
        post_[n] = after;
        base_.dur[n] = std::min(base_.dur[n], std::max(after, usual_launch[l]));
        ++inferred_waits_;
      }
      // A call the queue did not hold gets no edge: a replay whose host runs ahead would hold it
      // there, but on the simulated runs such edges held it more than the queue did (host-side
      // fixes priced 30% low): the queue is modelled where it was seen to bind.
    }
  }
  return done;
}

uint32_t ReplayGraph::WaitedFor(const std::vector<uint32_t>& by_end, uint32_t n, int64_t from,
                                int64_t to, int64_t returned) const {
  auto it = std::upper_bound(by_end.begin(), by_end.end(), to,
                             [&](int64_t v, uint32_t g) { return v < obs_end_[g]; });
  for (int steps = 0; it != by_end.begin() && steps < 64; ++steps) {
    uint32_t g = *--it;
    if (obs_end_[g] <= from) break;
    uint32_t l = launch_[g];
    if (l != kNone && (obs_start_[l] > returned || (lane_[l] == lane_[n] && l > n))) continue;
    return g;
  }
  return kNone;
}

void ReplayGraph::Order() {
  const uint32_t n = static_cast<uint32_t>(nodes());
  for (;;) {
    // Successor lists: start(n) -> start(ops n launched); end(n) -> start(next on lane),
    // end(calls waiting for n). start(n) -> end(n) is implicit.
    std::vector<uint32_t> indeg(2 * static_cast<size_t>(n), 0);
    std::vector<uint32_t> head(2 * static_cast<size_t>(n) + 1, 0), succ;
    auto edges = [&](auto&& f) {
      for (uint32_t v = 0; v < n; ++v) {
        if (base_.lane_prev[v] != kNone) f(base_.lane_prev[v] * 2 + 1, v * 2);
        if (launch_[v] != kNone) f(launch_[v] * 2, v * 2);
        if (base_.wait[v] != kNone) f(base_.wait[v] * 2 + 1, v * 2 + 1);
        if (base_.xdep[v] != kNone) f(base_.xdep[v] * 2 + 1, v * 2);
        if (has_more_[v]) {
          for (const auto& [x, off] : more_waits_.at(v)) f(x * 2 + 1, v * 2);
        }
      }
    };
    edges([&](uint32_t from, uint32_t to) { ++head[from + 1], ++indeg[to]; });
    for (size_t i = 1; i < head.size(); ++i) head[i] += head[i - 1];
    succ.resize(head.back());
    std::vector<uint32_t> fill(head.begin(), head.end() - 1);
    edges([&](uint32_t from, uint32_t to) { succ[fill[from]++] = to; });
    for (uint32_t v = 0; v < n; ++v) ++indeg[v * 2 + 1];  // end after its own start
    order_.clear();
    order_.reserve(2 * static_cast<size_t>(n));
    for (uint32_t p = 0; p < 2 * n; ++p) {
      if (indeg[p] == 0) order_.push_back(p);
    }
    for (size_t i = 0; i < order_.size(); ++i) {
      uint32_t p = order_[i];
      auto release = [&](uint32_t q) {
        if (--indeg[q] == 0) order_.push_back(q);
      };
      if ((p & 1) == 0) release(p + 1);
      for (uint32_t j = head[p]; j < head[p + 1]; ++j) release(succ[j]);
    }
    if (order_.size() == 2 * static_cast<size_t>(n)) return;
    // A cycle (clocks that disagree, overlapping events): drop the inferred waits and launch
    // edges of the points left over, and count them.
    std::vector<uint8_t> done(2 * static_cast<size_t>(n), 0);
    for (uint32_t p : order_) done[p] = 1;
    uint64_t dropped = 0;
    for (uint32_t v = 0; v < n; ++v) {
      if (!done[v * 2 + 1] && base_.wait[v] != kNone) {
        base_.dur[v] = obs_end_[v] - obs_start_[v];
        base_.wait[v] = kNone, ++dropped;
      } else if (!done[v * 2] && base_.xdep[v] != kNone) {
        base_.xdep[v] = kNone, has_more_[v] = 0, ++dropped;
        if (base_.lane_prev[v] != kNone)
          base_.gap[v] = std::max<int64_t>(0, obs_start_[v] - obs_end_[base_.lane_prev[v]]);
        else
          floor_[v] = obs_start_[v];
      } else if (!done[v * 2] && launch_[v] != kNone) {
        launch_[v] = kNone, linked_gap_[v] = base_.lane_prev[v] != kNone, ++dropped;
        if (base_.lane_prev[v] != kNone)
          base_.gap[v] = std::max<int64_t>(0, obs_start_[v] - obs_end_[base_.lane_prev[v]]);
        else
          floor_[v] = obs_start_[v];
      }
    }
    broken_ += dropped;
    if (dropped == 0) {  // only lane order is left: give up on ordering, replay observed times
      order_.clear();
      return;
    }
  }
}

void ReplayGraph::RecordedStreamWaits() {
  const auto& g = t_.gpu_ranges;
  std::vector<size_t> waits;
  for (size_t i = 0; i < g.size(); ++i)
    if (g.waits_on_record[i] != model::kNoCorrelation) waits.push_back(i);
  if (waits.empty()) return;
  std::unordered_map<uint64_t, model::RowId> call;  // correlation -> runtime call
  for (size_t a = 0; a < t_.api.size(); ++a)
    if (t_.api.correlation[a] != model::kNoCorrelation)
      call.emplace(t_.api.correlation[a], static_cast<model::RowId>(a));
  std::map<std::pair<int32_t, int64_t>, uint32_t> gpu_lane;  // (device, stream) -> lane
  std::unordered_map<model::TrackId, uint32_t> lane_of;
  for (uint32_t l = 0; l < lane_track_.size(); ++l) {
    if (lane_is_host_[l]) continue;
    const model::Track& tr = t_.tracks[lane_track_[l]];
    gpu_lane.emplace(std::make_pair(tr.device, tr.tid), l);
    lane_of.emplace(lane_track_[l], l);
  }
  // Where a lane's launched nodes stand against a host time: the launch calls of one stream
  // come from its issuing thread in order, so their starts rise along the lane.
  auto launched = [&](uint32_t n) {
    return launch_[n] != kNone ? obs_start_[launch_[n]] : obs_start_[n];
  };
  for (size_t i : waits) {
    auto wl = lane_of.find(g.track[i]);
    auto wc = call.find(g.correlation[i]);
    auto rc = call.find(g.waits_on_record[i]);
    if (wl == lane_of.end() || wc == call.end() || rc == call.end()) continue;
    auto rl = gpu_lane.find({t_.tracks[g.track[i]].device, g.waits_on_stream[i]});
    if (rl == gpu_lane.end() || rl->second == wl->second) continue;
    // The waiting stream's first op launched after the wait call; the recording stream's last
    // op launched before the record call (the event completes when it does).
    const auto& w = lane_nodes_[wl->second];
    const auto& r = lane_nodes_[rl->second];
    int64_t wait_at = t_.api.start_ns[wc->second], record_at = t_.api.start_ns[rc->second];
    auto n_it = std::partition_point(w.begin(), w.end(),
                                     [&](uint32_t v) { return launched(v) <= wait_at; });
    auto x_it = std::partition_point(r.begin(), r.end(),
                                     [&](uint32_t v) { return launched(v) < record_at; });
    if (n_it == w.end() || x_it == r.begin()) continue;
    uint32_t n = *n_it, x = *(x_it - 1);
    ++recorded_stream_waits_;
    AddRecordedWait(n, x);
  }
}

void ReplayGraph::WaitForOp(uint32_t n, uint32_t x) {
  base_.xdep[n] = x;
  int64_t offset = obs_start_[n] - obs_end_[x];
  // Whether its own stream or launch explains the op's start (queued behind the op before it by
  // about the usual gap, or launched onto a free stream at about the usual latency): then the
  // wait did not hold it - the event was complete, as a prefetched input's usually is - and it
  // follows x only across the dispatch gap, so that x's stream holds it once x ends later. A wait
  // that held it keeps the observed offset, and its own gap and latency become the usual ones.
  uint32_t prev = base_.lane_prev[n];
  bool by_lane = linked_gap_[n] && prev != kNone &&
                 obs_start_[n] - obs_end_[prev] <= UsualGap(n) + kLateStartNs;
  bool by_launch =
      launch_[n] != kNone && obs_start_[n] - obs_start_[launch_[n]] <= UsualLat(n) + kLateStartNs;
  if (by_lane || by_launch) {
    xoff_[n] = std::min(offset, UsualGap(n));
    return;
  }
  xoff_[n] = offset;
  base_.lat[n] = std::min(base_.lat[n], UsualLat(n));
  if (linked_gap_[n]) base_.gap[n] = std::min(base_.gap[n], UsualGap(n));
}

void ReplayGraph::AddRecordedWait(uint32_t n, uint32_t x) {
  uint32_t held = base_.xdep[n];
  if (held == kNone) {
    WaitForOp(n, x);
    return;
  }
  if (held == x) return;
  uint32_t other = x;
  if (obs_end_[x] > obs_end_[held]) {  // x ended last: it held n
    WaitForOp(n, x);
    other = held;
  }
  more_waits_[n].emplace_back(other, std::min(obs_start_[n] - obs_end_[other], UsualGap(n)));
  has_more_[n] = 1;
}

void ReplayGraph::InferStreamWaits(const std::vector<std::pair<uint32_t, int>>& device,
                                   const std::vector<std::pair<uint32_t, int>>& late,
                                   const std::map<int, int64_t>& typical) {
  if (late.empty()) return;
  std::map<int, std::vector<uint32_t>> by_end;  // per device, GPU nodes by observed end
  for (auto [n, dev] : device) by_end[dev].push_back(n);
  for (auto& [dev, v] : by_end) {
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
      return std::pair(obs_end_[a], a) < std::pair(obs_end_[b], b);
    });
  }
  for (auto [n, dev] : late) {
    if (base_.xdep[n] != kNone) continue;  // a recorded wait
    const auto& v = by_end[dev];
    // An event between streams takes about what a launch takes to reach the GPU: at most
    // kStreamHandoffNs (2-5 us on NVIDIA GPUs; 14-19 us between an RCCL kernel's end and the
    // copy waiting for it on an MI300X), the device's typical launch latency where it is longer.
    auto u = typical.find(dev);
    int64_t usual = u == typical.end() ? kDefaultLaunchLatencyNs : u->second;
    int64_t handoff = std::max(kStreamHandoffNs, usual);
    auto it = std::upper_bound(v.begin(), v.end(), obs_start_[n],
                               [&](int64_t t, uint32_t x) { return t < obs_end_[x]; });
    for (int steps = 0; it != v.begin() && steps < 16; ++steps) {
      uint32_t x = *--it;
      if (obs_start_[n] - obs_end_[x] > handoff) break;
      if (lane_[x] == lane_[n]) continue;
      WaitForOp(n, x);
      ++inferred_stream_waits_;
      break;
    }
  }
}

}  // namespace gpuscope::analysis
