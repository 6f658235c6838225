#include "analysis/replay_graph.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "base/text.h"

namespace gpuscope::analysis {

namespace {

constexpr int64_t kNoFloor = std::numeric_limits<int64_t>::min();
// A GPU op that starts within this of its predecessor's end was queued behind it, so its
// observed launch-to-start time says nothing about the launch latency.
constexpr int64_t kQueuedSlackNs = 1'000;
// Launch latency when a device has no op that started on an idle stream (documented default).
constexpr int64_t kDefaultLaunchLatencyNs = 5'000;
// A thread idle (in no op, frame or call) this long between two calls was waiting for another
// thread (autograd's backward thread for the main one, a consumer for its producer).
constexpr int64_t kHandoffIdleNs = 20'000;
// A GPU op that found its stream idle but started this much later than its launch call + the
// device's usual latency, right after an op of another stream ended (within kStreamHandoffNs),
// waited for that op (an event wait between streams: cudaStreamWaitEvent, NCCL/RCCL syncs).
constexpr int64_t kLateStartNs = 10'000;
constexpr int64_t kStreamHandoffNs = 5'000;
// A launch call that starts this long after its GPU op is a clock disagreement, not a launch.
constexpr int64_t kMaxClockSkewNs = 1'000'000;

bool CanBlock(std::string_view n) {
  return n.find("Synchronize") != std::string_view::npos ||
         n.find("Memcpy") != std::string_view::npos || n.find("memcpy") != std::string_view::npos;
}

bool IsDataLoading(std::string_view n) {
  return n.find("DataLoader") != std::string_view::npos ||
         n.find("dataloader") != std::string_view::npos;
}

int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) {
  return std::max<int64_t>(0, std::min(e, b) - std::max(s, a));
}

}  // namespace

ReplayGraph::ReplayGraph(const model::Trace& t, int64_t w0, int64_t w1) : t_(t), w0_(w0) {
  BuildHost(w0, w1);
  BuildGpu(w0, w1);
  InferWaits();
  Order();
  // Threads that launch or wait for GPU work bound the window; without GPU work, all do.
  std::vector<uint8_t> lane_measured(lane_track_.size(), 0);
  bool gpu = false;
  for (uint32_t n = 0; n < nodes(); ++n) {
    if (kind_[n] == Kind::kKernel || kind_[n] == Kind::kCopy) {
      gpu = true;
      lane_measured[lane_[n]] = 1;
      if (launch_[n] != kNone) lane_measured[lane_[launch_[n]]] = 1;
    }
  }
  int64_t last = w0;
  for (uint32_t n = 0; n < nodes(); ++n) {
    measured_[n] = !gpu || lane_measured[lane_[n]];
    if (measured_[n]) last = std::max(last, obs_end_[n]);
  }
  observed_ = last - w0;
  lane_prev0_ = base_.lane_prev;
}

uint32_t ReplayGraph::Add(Kind k, uint32_t lane, int64_t s, int64_t e) {
  uint32_t n = static_cast<uint32_t>(kind_.size());
  kind_.push_back(k);
  lane_.push_back(lane);
  row_.push_back(kNone);
  obs_start_.push_back(s);
  obs_end_.push_back(e);
  floor_.push_back(kNoFloor);
  post_.push_back(0);
  launch_.push_back(kNone);
  xdep_.push_back(kNone);
  xoff_.push_back(0);
  measured_.push_back(0);
  linked_gap_.push_back(0);
  base_.dur.push_back(e - s);
  base_.gap.push_back(0);
  base_.lat.push_back(0);
  base_.wait.push_back(kNone);
  base_.lane_prev.push_back(kNone);
  lane_nodes_[lane].push_back(n);
  return n;
}

void ReplayGraph::BuildHost(int64_t w0, int64_t w1) {
  const auto& api = t_.api;
  api_node_.assign(api.size(), kNone);
  struct Span {
    int64_t first = std::numeric_limits<int64_t>::max(), last = kNoFloor;
    std::vector<uint32_t> calls;
    std::vector<std::pair<int64_t, int64_t>> busy;  // ranges and calls on the thread
  };
  std::map<model::TrackId, Span> threads;
  // Only outermost ranges make the busy time (nested ones lie inside them).
  auto touch = [&](model::TrackId tr, int64_t s, int64_t e, bool outermost) {
    if (s < w0 || s >= w1) return (Span*)nullptr;
    Span& sp = threads[tr];
    sp.first = std::min(sp.first, s), sp.last = std::max(sp.last, e);
    if (outermost) sp.busy.emplace_back(s, e);
    return &sp;
  };
  for (size_t i = 0; i < api.size(); ++i) {
    if (api.domain[i] == model::ApiDomain::kOs) continue;
    if (Span* sp = touch(api.track[i], api.start_ns[i], api.end_ns(i),
                         api.enclosing_op[i] == model::kNoRow))
      sp->calls.push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < t_.cpu.size(); ++i)
    touch(t_.cpu.track[i], t_.cpu.start_ns[i], t_.cpu.end_ns(i), t_.cpu.parent[i] == model::kNoRow);
  for (size_t i = 0; i < t_.python.size(); ++i)
    touch(t_.python.track[i], t_.python.start_ns[i], t_.python.end_ns(i),
          t_.python.parent[i] == model::kNoRow);
  std::vector<std::pair<uint32_t, int64_t>> idle_before;  // node, idle part of its gap
  std::map<model::TrackId, std::vector<uint32_t>> ranges;
  for (size_t i = 0; i < t_.cpu.size(); ++i) {
    if (t_.cpu.end_ns(i) > w0 && t_.cpu.start_ns[i] < w1)
      ranges[t_.cpu.track[i]].push_back(static_cast<uint32_t>(i));
  }
  for (auto& [track, sp] : threads) {
    uint32_t lane = static_cast<uint32_t>(lane_track_.size());
    lane_track_.push_back(track);
    lane_is_host_.push_back(1);
    auto rg = ranges.find(track);
    lane_cpu_.emplace_back(rg == ranges.end() ? std::vector<uint32_t>() : std::move(rg->second));
    std::sort(lane_cpu_.back().begin(), lane_cpu_.back().end(),
              [&](uint32_t a, uint32_t b) { return t_.cpu.start_ns[a] < t_.cpu.start_ns[b]; });
    std::vector<Interval>& busy = sp.busy;
    MergeIntervals(busy);
    size_t cursor = 0;
    // The part of [a, b) in which the thread did nothing (queries come in time order).
    auto idle_in = [&](int64_t a, int64_t b) {
      while (cursor < busy.size() && busy[cursor].second <= a) ++cursor;
      int64_t covered = 0;
      for (size_t k = cursor; k < busy.size() && busy[k].first < b; ++k)
        covered += Overlap(busy[k].first, busy[k].second, a, b);
      return std::max<int64_t>(0, (b - a) - covered);
    };
    lane_nodes_.emplace_back();
    std::sort(sp.calls.begin(), sp.calls.end(), [&](uint32_t a, uint32_t b) {
      return api.start_ns[a] != api.start_ns[b] ? api.start_ns[a] < api.start_ns[b]
                                                : api.dur_ns[a] > api.dur_ns[b];
    });
    uint32_t prev = Add(Kind::kHostEdge, lane, sp.first, sp.first);
    floor_[prev] = sp.first;
    if (sp.first - w0 >= kHandoffIdleNs) idle_before.emplace_back(prev, sp.first - w0);
    auto link = [&](uint32_t n) {
      base_.lane_prev[n] = prev;
      base_.gap[n] = std::max<int64_t>(0, obs_start_[n] - obs_end_[prev]);
      int64_t idle = base_.gap[n] > kHandoffIdleNs ? idle_in(obs_end_[prev], obs_start_[n]) : 0;
      if (idle >= kHandoffIdleNs) idle_before.emplace_back(n, idle);
      prev = n;
    };
    for (uint32_t r : sp.calls) {
      // A call inside the previous one (a driver call inside a runtime call) belongs to it.
      if (kind_[prev] == Kind::kCall && api.start_ns[r] < obs_end_[prev]) {
        api_node_[r] = prev;
        continue;
      }
      uint32_t n = Add(Kind::kCall, lane, api.start_ns[r], api.end_ns(r));
      row_[n] = r;
      api_node_[r] = n;
      link(n);
    }
    uint32_t end = Add(Kind::kHostEdge, lane, std::max(sp.last, obs_end_[prev]),
                       std::max(sp.last, obs_end_[prev]));
    link(end);
  }
  // An idle thread resumes after the last thing another thread finished before it resumed: that
  // node's end + the observed delay replaces the idle time (the busy part stays as work).
  std::vector<uint32_t> by_end(nodes());
  for (uint32_t v = 0; v < by_end.size(); ++v) by_end[v] = v;
  std::sort(by_end.begin(), by_end.end(),
            [&](uint32_t a, uint32_t b) { return obs_end_[a] < obs_end_[b]; });
  for (auto [n, idle] : idle_before) {
    int64_t from = base_.lane_prev[n] == kNone ? w0 : obs_end_[base_.lane_prev[n]];
    auto it = std::upper_bound(by_end.begin(), by_end.end(), obs_start_[n],
                               [&](int64_t v, uint32_t x) { return v < obs_end_[x]; });
    for (int steps = 0; it != by_end.begin() && steps < 64; ++steps) {
      uint32_t x = *--it;
      if (obs_end_[x] < from) break;
      if (lane_[x] == lane_[n] || kind_[x] == Kind::kHostEdge) continue;
      xdep_[n] = x;
      xoff_[n] = obs_start_[n] - obs_end_[x];
      if (base_.lane_prev[n] == kNone)
        floor_[n] = kNoFloor;
      else
        base_.gap[n] -= idle;
      break;
    }
  }
}

namespace {

int64_t LateLimit(const std::map<int, int64_t>& typical, int device) {
  auto it = typical.find(device);
  return (it == typical.end() ? kDefaultLaunchLatencyNs : it->second) + kLateStartNs;
}

}  // namespace

void ReplayGraph::BuildGpu(int64_t w0, int64_t w1) {
  struct Op {
    int64_t s, e;
    uint32_t row;
    bool kernel;
    model::RowId launch;
    int device;
  };
  std::map<model::TrackId, std::vector<Op>> streams;
  std::map<model::TrackId, int64_t> before;  // end of the last op before the window
  auto add = [&](model::TrackId tr, int64_t s, int64_t e, size_t row, bool kernel,
                 model::RowId launch, int device) {
    // Work launched in the window belongs to it, even when the GPU runs it after the window
    // (a GPU-bound run whose host runs ahead).
    if (s >= w1 &&
        (launch == model::kNoRow || t_.api.start_ns[launch] >= w1 || t_.api.start_ns[launch] < w0))
      return;
    if (s < w0) {
      auto [it, fresh] = before.emplace(tr, e);
      if (!fresh) it->second = std::max(it->second, e);
      return;
    }
    streams[tr].push_back({s, e, static_cast<uint32_t>(row), kernel, launch, device});
  };
  const auto& k = t_.kernels;
  const auto& m = t_.memops;
  for (size_t i = 0; i < k.size(); ++i)
    add(k.track[i], k.start_ns[i], k.end_ns(i), i, true, k.launch[i], k.device[i]);
  for (size_t i = 0; i < m.size(); ++i)
    add(m.track[i], m.start_ns[i], m.end_ns(i), i, false, m.launch[i], m.device[i]);
  kernel_node_.assign(k.size(), kNone);
  memop_node_.assign(m.size(), kNone);
  // The typical launch latency of each device, over ops that found their stream idle.
  std::map<int, std::vector<int64_t>> idle_latency;
  for (auto& [tr, ops] : streams) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.s < b.s; });
    auto b = before.find(tr);
    int64_t prev_end = b == before.end() ? kNoFloor : b->second;
    for (const Op& op : ops) {
      uint32_t l = op.launch == model::kNoRow ? kNone : api_node_[op.launch];
      if (l != kNone && op.s > prev_end + kQueuedSlackNs)
        idle_latency[op.device].push_back(op.s - obs_start_[l]);
      prev_end = std::max(prev_end, op.e);
    }
  }
  std::map<int, int64_t> typical;
  for (auto& [dev, v] : idle_latency) {
    // The 10th percentile: ops held by another stream also start late on an idle stream, so the
    // median would count their waits as latency.
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 10), v.end());
    typical[dev] = std::max<int64_t>(0, v[v.size() / 10]);
  }
  std::unordered_map<uint32_t, int> device;  // GPU node -> its device
  std::vector<uint32_t> late;                // GPU nodes that started late on an idle stream
  for (auto& [tr, ops] : streams) {
    uint32_t lane = static_cast<uint32_t>(lane_track_.size());
    lane_track_.push_back(tr);
    lane_is_host_.push_back(0);
    lane_cpu_.emplace_back();
    lane_nodes_.emplace_back();
    auto b = before.find(tr);
    int64_t prev_end = b == before.end() ? kNoFloor : b->second;
    uint32_t prev = kNone;
    for (const Op& op : ops) {
      uint32_t n = Add(op.kernel ? Kind::kKernel : Kind::kCopy, lane, op.s, op.e);
      row_[n] = op.row;
      (op.kernel ? kernel_node_ : memop_node_)[op.row] = n;
      uint32_t l = op.launch == model::kNoRow ? kNone : api_node_[op.launch];
      if (prev == kNone) floor_[n] = prev_end;
      base_.lane_prev[n] = prev;
      if (l != kNone && obs_start_[l] <= op.s + kMaxClockSkewNs) {
        launch_[n] = l;
        int64_t observed = op.s - obs_start_[l];
        bool queued = prev_end != kNoFloor && op.s <= prev_end + kQueuedSlackNs;
        auto it = typical.find(op.device);
        int64_t usual = it == typical.end() ? kDefaultLaunchLatencyNs : it->second;
        base_.lat[n] = queued ? std::min(observed, usual) : observed;
      } else if (prev != kNone) {
        linked_gap_[n] = 1;  // no launch call: keep the observed distance to the predecessor
        base_.gap[n] = std::max<int64_t>(0, op.s - obs_end_[prev]);
      } else {
        floor_[n] = op.s;
      }
      prev_end = std::max(prev_end, op.e);
      prev = n;
      device[n] = op.device;
      if (launch_[n] != kNone && base_.lat[n] > LateLimit(typical, op.device)) late.push_back(n);
    }
  }
  InferStreamWaits(device, late, typical);
}

void ReplayGraph::InferStreamWaits(const std::unordered_map<uint32_t, int>& device,
                                   const std::vector<uint32_t>& late,
                                   const std::map<int, int64_t>& typical) {
  if (late.empty()) return;
  std::map<int, std::vector<uint32_t>> by_end;  // per device, GPU nodes by observed end
  for (auto [n, dev] : device) by_end[dev].push_back(n);
  for (auto& [dev, v] : by_end) {
    std::sort(v.begin(), v.end(),
              [&](uint32_t a, uint32_t b) { return obs_end_[a] < obs_end_[b]; });
  }
  for (uint32_t n : late) {
    int dev = device.at(n);
    const auto& v = by_end[dev];
    auto it = std::upper_bound(v.begin(), v.end(), obs_start_[n],
                               [&](int64_t t, uint32_t x) { return t < obs_end_[x]; });
    for (int steps = 0; it != v.begin() && steps < 16; ++steps) {
      uint32_t x = *--it;
      if (obs_start_[n] - obs_end_[x] > kStreamHandoffNs) break;
      if (lane_[x] == lane_[n]) continue;
      xdep_[n] = x;
      xoff_[n] = obs_start_[n] - obs_end_[x];
      auto u = typical.find(dev);
      base_.lat[n] =
          std::min(base_.lat[n], u == typical.end() ? kDefaultLaunchLatencyNs : u->second);
      ++inferred_stream_waits_;
      break;
    }
  }
}

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
  {
    std::vector<std::vector<int64_t>> d(lane_track_.size());
    for (uint32_t n = 0; n < nodes(); ++n) {
      if (kind_[n] == Kind::kCall &&
          t_.str(t_.api.name[row_[n]]).find("Launch") != std::string_view::npos)
        d[lane_[n]].push_back(obs_end_[n] - obs_start_[n]);
    }
    for (size_t l = 0; l < d.size(); ++l) {
      if (d[l].empty()) continue;
      std::nth_element(d[l].begin(), d[l].begin() + static_cast<long>(d[l].size() / 2), d[l].end());
      usual_launch[l] = d[l][d[l].size() / 2];
    }
  }
  for (uint32_t n = 0; n < nodes(); ++n) {
    if (kind_[n] != Kind::kCall) continue;
    std::string_view name = t_.str(t_.api.name[row_[n]]);
    bool held_launch = name.find("Launch") != std::string_view::npos &&
                       usual_launch[lane_[n]] > 0 &&
                       obs_end_[n] - obs_start_[n] > 4 * usual_launch[lane_[n]] + kQueuedSlackNs;
    if (!held_launch && !CanBlock(name)) continue;
    if (nonblocking[n] && name.find("Async") != std::string_view::npos) continue;
    int64_t s = obs_start_[n], e = obs_end_[n];
    auto it = std::upper_bound(gpu.begin(), gpu.end(), e,
                               [&](int64_t v, uint32_t g) { return v < obs_end_[g]; });
    // The last op that ended inside the call and was launched before the call returned (from
    // this thread: no later than the call itself, so that the graph stays acyclic).
    for (int steps = 0; it != gpu.begin() && steps < 64; ++steps) {
      uint32_t g = *--it;
      if (obs_end_[g] <= s) break;
      uint32_t l = launch_[g];
      if (l != kNone && (obs_start_[l] > e || (lane_[l] == lane_[n] && l > n))) continue;
      base_.wait[n] = g;
      post_[n] = e - obs_end_[g];
      base_.dur[n] = std::min(base_.dur[n], post_[n]);
      ++inferred_waits_;
      break;
    }
  }
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
        if (xdep_[v] != kNone) f(xdep_[v] * 2 + 1, v * 2);
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
      } else if (!done[v * 2] && xdep_[v] != kNone) {
        xdep_[v] = kNone, ++dropped;
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
  for (size_t r : f.graph_kernels) {
    if (uint32_t n = gpu(kernel_node_, r); n != kNone) set(p.lat[n], int64_t{0});
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
  if (!f.host_scale.empty()) {
    std::unordered_map<model::TrackId, uint32_t> lane_of;
    for (uint32_t l = 0; l < lane_track_.size(); ++l) {
      if (lane_is_host_[l]) lane_of[lane_track_[l]] = l;
    }
    for (const auto& h : f.host_scale) {
      auto it = lane_of.find(h.track);
      if (it == lane_of.end()) continue;
      const auto& lane = lane_nodes_[it->second];
      double cut = 1.0 - std::clamp(h.factor, 0.0, 1.0);
      auto first = std::lower_bound(lane.begin(), lane.end(), h.start_ns,
                                    [&](uint32_t v, int64_t ts) { return obs_end_[v] < ts; });
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
        if (kind_[n] == Kind::kCall && p.wait[n] == kNone) {
          int64_t cut_ns = static_cast<int64_t>(
              cut * static_cast<double>(Overlap(obs_start_[n], obs_end_[n], h.start_ns, h.end_ns)));
          set(p.dur[n], std::max<int64_t>(0, p.dur[n] - cut_ns));
        }
      }
    }
  }
}

ReplayResult ReplayGraph::Replay(const WhatIf* fix, bool with_path) const {
  ReplayResult out;
  const size_t n = nodes();
  if (n == 0) return out;
  // The fix edits the parameters in place and the edits are undone after the pass: replays
  // cost one pass over the order, not a copy of every column (one replay at a time).
  Params& p = base_;
  Undo undo;
  if (fix) Apply(*fix, p, undo);
  std::vector<int64_t>& start = start_;
  std::vector<int64_t>& end = end_;
  start.resize(n), end.resize(n);
  if (order_.empty()) {  // could not be ordered: the observed times
    for (size_t v = 0; v < n; ++v) start[v] = obs_start_[v], end[v] = obs_end_[v];
  }
  for (uint32_t pt : order_) {
    uint32_t v = pt >> 1;
    if ((pt & 1) == 0) {
      int64_t s = floor_[v];
      if (p.lane_prev[v] != kNone) {
        bool gap = lane_is_host_[lane_[v]] || linked_gap_[v];
        s = std::max(s, end[p.lane_prev[v]] + (gap ? p.gap[v] : 0));
      }
      if (launch_[v] != kNone) s = std::max(s, start[launch_[v]] + p.lat[v]);
      if (xdep_[v] != kNone) s = std::max(s, end[xdep_[v]] + xoff_[v]);
      start[v] = s == kNoFloor ? obs_start_[v] : s;
    } else {
      int64_t e = start[v] + p.dur[v];
      if (p.wait[v] != kNone) e = std::max(e, end[p.wait[v]] + post_[v]);
      end[v] = e;
    }
  }
  uint32_t last = kNone;
  for (uint32_t v = 0; v < n; ++v) {
    if (measured_[v] && (last == kNone || end[v] > end[last])) last = v;
  }
  if (last != kNone) {
    out.window_ns = end[last] - w0_;
    if (with_path) WalkPath(p, start, end, last, out);
  }
  undo.Restore();
  return out;
}

model::RowId ReplayGraph::RangeAt(uint32_t lane, int64_t ts) const {
  const auto& rows = lane_cpu_[lane];
  const auto& cpu = t_.cpu;
  auto it = std::upper_bound(rows.begin(), rows.end(), ts,
                             [&](int64_t v, uint32_t r) { return v < cpu.start_ns[r]; });
  if (it == rows.begin()) return model::kNoRow;
  // Ranges on a thread nest: the last one to start before ts, or one of its parents, is the
  // deepest range holding ts.
  model::RowId r = *--it;
  while (r != model::kNoRow && cpu.end_ns(r) <= ts) r = cpu.parent[r];
  return r;
}

std::pair<std::string, std::string> ReplayGraph::GapCategory(uint32_t v, int64_t ts) const {
  const auto& cpu = t_.cpu;
  model::RowId deepest = RangeAt(lane_[v], ts);
  model::RowId op = model::kNoRow;
  for (model::RowId r = deepest; r != model::kNoRow; r = cpu.parent[r]) {
    if (IsDataLoading(t_.str(cpu.name[r])))
      return {"data loading", std::string(t_.str(cpu.name[r]))};
    if (op == model::kNoRow && cpu.kind[r] == model::CpuRangeKind::kOp) op = r;
  }
  if (op != model::kNoRow) return {"op dispatch", std::string(t_.str(cpu.name[op]))};
  return {t_.python.size() ? "Python" : "host work", {}};
}

void ReplayGraph::WalkPath(const Params& p, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& end, uint32_t last,
                           ReplayResult& out) const {
  std::map<std::string, int64_t> share;
  std::map<std::pair<std::string, std::string>, int64_t> places;
  auto add = [&](const std::string& cat, std::string_view name, int64_t ns) {
    if (ns <= 0) return;
    share[cat] += ns;
    if (!name.empty()) places[{cat, std::string(name)}] += ns;
  };
  auto name_of = [&](uint32_t v) -> std::string_view {
    switch (kind_[v]) {
      case Kind::kKernel:
        return t_.str(t_.kernels.name[row_[v]]);
      case Kind::kCopy:
        return t_.str(t_.memops.name[row_[v]]);
      case Kind::kCall:
        return t_.str(t_.api.name[row_[v]]);
      default:
        return {};
    }
  };
  auto call_category = [](std::string_view n) {
    if (n.find("Synchronize") != std::string_view::npos) return "sync waits";
    if (n.find("emcpy") != std::string_view::npos) return "copy calls";
    if (n.find("aunch") != std::string_view::npos) return "launch calls";
    return "other runtime calls";
  };
  uint32_t v = last;
  bool at_end = true;
  size_t guard = 4 * nodes() + 8;
  while (guard-- > 0) {
    if (at_end) {
      int64_t waited = p.wait[v] != kNone ? end[p.wait[v]] + post_[v] : kNoFloor;
      if (waited == end[v] && waited > start[v] + p.dur[v]) {
        add(kind_[v] == Kind::kCall ? call_category(name_of(v)) : "sync waits", name_of(v),
            post_[v]);
        v = p.wait[v];
        continue;
      }
      const char* cat = kind_[v] == Kind::kKernel ? "GPU kernels"
                        : kind_[v] == Kind::kCopy ? "GPU copies"
                        : kind_[v] == Kind::kCall ? call_category(name_of(v))
                                                  : "host work";
      add(cat, name_of(v), end[v] - start[v]);
      at_end = false;
      continue;
    }
    int64_t s = start[v];
    if (s <= w0_) break;
    if (launch_[v] != kNone && start[launch_[v]] + p.lat[v] == s) {
      add("launch latency", {}, p.lat[v]);
      v = launch_[v];
      continue;
    }
    if (xdep_[v] != kNone && end[xdep_[v]] + xoff_[v] == s) {
      add(lane_is_host_[lane_[v]] ? "thread handoffs" : "stream waits", {}, xoff_[v]);
      v = xdep_[v];
      at_end = true;
      continue;
    }
    uint32_t q = p.lane_prev[v];
    bool gap = lane_is_host_[lane_[v]] || linked_gap_[v];
    if (q != kNone && end[q] + (gap ? p.gap[v] : 0) == s) {
      if (gap && p.gap[v] > 0 && !lane_is_host_[lane_[v]]) {
        add("GPU gaps (unlinked ops)", {}, p.gap[v]);
      } else if (gap && p.gap[v] > 0) {
        // The host work of the gap, by what ran there: sampled at up to 256 points (one per
        // 50 us), so that a long gap - a CPU-only run is one - is split, not named after one op.
        int64_t len = p.gap[v];
        int64_t slices = std::clamp<int64_t>(len / 50'000, 1, 256);
        for (int64_t k = 0; k < slices; ++k) {
          int64_t a = len * k / slices, b = len * (k + 1) / slices;
          auto [cat, place] = GapCategory(v, obs_start_[v] - len + (a + b) / 2);
          add(cat, place, b - a);
        }
      }
      v = q;
      at_end = true;
      continue;
    }
    add("before the window", {}, s - w0_);  // held by work that started earlier
    break;
  }
  for (auto& [cat, ns] : share) out.path.push_back({cat, ns});
  std::sort(out.path.begin(), out.path.end(),
            [](const PathShare& a, const PathShare& b) { return a.ns > b.ns; });
  for (auto& [key, ns] : places) out.top_places.push_back({key.first, key.second, ns});
  std::sort(out.top_places.begin(), out.top_places.end(),
            [](const PathPlace& a, const PathPlace& b) { return a.ns > b.ns; });
  if (out.top_places.size() > 5) out.top_places.resize(5);
}

}  // namespace gpuscope::analysis
