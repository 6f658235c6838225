// Building the dependency graph: the lanes (host threads, GPU streams) and their nodes.

#include "analysis/replay/replay_graph.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/common/intervals.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

ReplayGraph::ReplayGraph(const model::Trace& t, int64_t w0, int64_t w1)
    : t_(t), w0_(w0), usuals_{{kDefaultLaunchLatencyNs, 0}} {
  usual_index_[{kDefaultLaunchLatencyNs, 0}] = 0;
  Reserve(t.api.size() + t.kernels.size() + t.memops.size() + 2 * t.tracks.size());
  BuildHost(w0, w1);
  BuildGpu(w0, w1);
  InferWaits();
  InferPolls();
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
  // Which queued calls wait in the built graph: fixes renumber only those (RequeueLaunches),
  // read from here and not from the parameters, which a replay beside it may be editing.
  for (LaunchQueue& q : queues_)
    for (QueueEntry& e : q.entries) e.waits = base_.wait[e.call] != kNone;
}

void ReplayGraph::SetUsual(uint32_t n, int64_t lat, int64_t gap) {
  auto [it, added] =
      usual_index_.emplace(std::pair{lat, gap}, static_cast<uint32_t>(usuals_.size()));
  if (added) usuals_.push_back({lat, gap});
  usual_[n] = it->second;
}

void ReplayGraph::Reserve(size_t n) {
  auto room = [n](auto&... v) { (v.reserve(n), ...); };
  room(kind_, lane_, row_, obs_start_, obs_end_, floor_, post_, launch_, xoff_, measured_,
       linked_gap_, has_more_, usual_, base_.dur, base_.gap, base_.lat, base_.wait, base_.lane_prev,
       base_.xdep);
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
  base_.xdep.push_back(kNone);
  xoff_.push_back(0);
  measured_.push_back(0);
  linked_gap_.push_back(0);
  has_more_.push_back(0);
  usual_.push_back(0);
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
      // A thread that resumed and then worked longer than it had waited (a step that begins, then
      // waits 40 ms in the data loader) was held by its own work, which a fix can shorten: no
      // handoff, whose fixed delay would hold that work.
      if (idle >= kHandoffIdleNs && BusyRunBefore(busy, obs_end_[prev], obs_start_[n]) <= idle)
        idle_before.emplace_back(n, idle);
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
      base_.xdep[n] = x;
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

bool ReplayGraph::Queued(model::RowId call, uint32_t l, int64_t op_start, int64_t op_end,
                         int64_t stream_free) const {
  // Back to back with the stream's previous op: queued behind it, whatever the call says.
  if (op_start <= stream_free + kQueuedSlackNs) return true;
  // When the call had submitted the op: an asynchronous launch by the time it returned; a graph
  // launch or a blocking call (it returned after the op ended: a synchronous copy) possibly as
  // early as it started.
  std::string_view name = t_.str(t_.api.name[call]);
  bool early = IsGraphLaunchApi(name) || IsBlockingCopyApi(name) || obs_end_[l] > op_end;
  return (early ? obs_start_[l] : obs_end_[l]) < stream_free;
}

namespace {

// Per device, from the samples: the typical launch latency (10th percentile of the ops launched
// onto a free stream: ops held by another stream's event also start late, so a median would
// count their waits as latency) and dispatch gap (the median of the queued ops' gaps up to
// kMaxDispatchGapNs: a gap jitters, 1-6 us on one device, and a fix that keeps queued kernels
// queued keeps its typical size, not its smallest; longer gaps are waits for another stream,
// which may be half of the queued ops where every other kernel follows a collective).
void TypicalPerDevice(std::map<int, std::vector<int64_t>>& idle_latency,
                      std::map<int, std::vector<int64_t>>& queued_gap,
                      std::map<int, int64_t>& typical, std::map<int, int64_t>& dispatch) {
  auto percentile = [](std::vector<int64_t>& v, size_t pct) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() * pct / 100), v.end());
    return std::max<int64_t>(0, v[v.size() * pct / 100]);
  };
  for (auto& [dev, v] : idle_latency)  // a handful of ops says nothing typical either
    if (v.size() >= kMinDispatchSamples) typical[dev] = percentile(v, 10);
  // A handful of queued ops says nothing typical (one may be an event wait): no dispatch gap
  // is assumed then, and any gap beyond kLateStartNs is a wait to explain.
  for (auto& [dev, v] : queued_gap) {
    std::erase_if(v, [](int64_t gap) { return gap > kMaxDispatchGapNs; });
    if (v.size() >= kMinDispatchSamples) dispatch[dev] = percentile(v, 50);
  }
}

// The window's GPU ops per stream, sorted by start, each as its row (8 bytes: times, launch
// and device are read from the tables - a trace can hold millions), and per stream the end of the
// last op before the window.
struct GpuOp {
  uint32_t row;
  bool kernel;
};
class WindowGpuOps {
 public:
  WindowGpuOps(const model::Trace& t, int64_t w0, int64_t w1) : k_(t.kernels), m_(t.memops) {
    auto add = [&](model::TrackId tr, size_t row, bool kernel) {
      const GpuOp op{static_cast<uint32_t>(row), kernel};
      const View v = At(op);
      // Work launched in the window belongs to it, even when the GPU runs it after the window
      // (a GPU-bound run whose host runs ahead).
      if (v.s >= w1 && (v.launch == model::kNoRow || t.api.start_ns[v.launch] >= w1 ||
                        t.api.start_ns[v.launch] < w0))
        return;
      if (v.s < w0) {
        auto [it, fresh] = before.emplace(tr, v.e);
        if (!fresh) it->second = std::max(it->second, v.e);
        return;
      }
      streams[tr].push_back(op);
    };
    for (size_t i = 0; i < k_.size(); ++i) add(k_.track[i], i, true);
    for (size_t i = 0; i < m_.size(); ++i) add(m_.track[i], i, false);
    for (auto& [tr, ops] : streams) {
      std::stable_sort(ops.begin(), ops.end(),
                       [&](GpuOp a, GpuOp b) { return Start(a) < Start(b); });
    }
  }
  // An op's times, launch call and device, read from its table.
  struct View {
    int64_t s, e;
    model::RowId launch;
    int device;
  };
  View At(GpuOp o) const {
    return o.kernel
               ? View{k_.start_ns[o.row], k_.end_ns(o.row), k_.launch[o.row], k_.device[o.row]}
               : View{m_.start_ns[o.row], m_.end_ns(o.row), m_.launch[o.row], m_.device[o.row]};
  }
  int64_t Start(GpuOp o) const { return o.kernel ? k_.start_ns[o.row] : m_.start_ns[o.row]; }

  std::map<model::TrackId, std::vector<GpuOp>> streams;
  std::map<model::TrackId, int64_t> before;  // end of the last op before the window

 private:
  const model::KernelTable& k_;
  const model::MemopTable& m_;
};

}  // namespace

void ReplayGraph::BuildGpu(int64_t w0, int64_t w1) {
  const WindowGpuOps g(t_, w0, w1);
  const auto& streams = g.streams;
  const auto& before = g.before;
  const auto& k = t_.kernels;
  const auto& m = t_.memops;
  kernel_node_.assign(k.size(), kNone);
  memop_node_.assign(m.size(), kNone);
  // Per device: the typical launch latency, over ops launched onto a free stream (the launch
  // call ended after the stream's previous op ended), and the typical dispatch gap, over
  // queued ops (launched while the stream was busy: they start when it frees, plus the gap the
  // GPU leaves between back-to-back work - 1-5 us, more on some devices; never assumed 0).
  std::map<int, std::vector<int64_t>> idle_latency, queued_gap;
  for (auto& [tr, ops] : streams) {
    auto b = before.find(tr);
    int64_t prev_end = b == before.end() ? kNoFloor : b->second;
    for (const GpuOp o : ops) {
      const auto [s, e, launch, dev] = g.At(o);
      uint32_t l = launch == model::kNoRow ? kNone : api_node_[launch];
      if (l != kNone && obs_start_[l] <= s + kMaxClockSkewNs) {
        if (prev_end != kNoFloor && Queued(launch, l, s, e, prev_end))
          queued_gap[dev].push_back(std::max<int64_t>(0, s - prev_end));
        else
          idle_latency[dev].push_back(s - obs_start_[l]);
      }
      prev_end = std::max(prev_end, e);
    }
  }
  std::map<int, int64_t> typical, dispatch;
  TypicalPerDevice(idle_latency, queued_gap, typical, dispatch);
  // GPU nodes and their devices: all of them, and those that started late on an idle stream.
  std::vector<std::pair<uint32_t, int>> device, late;
  for (auto& [tr, ops] : streams) {
    uint32_t lane = static_cast<uint32_t>(lane_track_.size());
    lane_track_.push_back(tr);
    lane_is_host_.push_back(0);
    lane_cpu_.emplace_back();
    lane_nodes_.emplace_back();
    auto b = before.find(tr);
    int64_t prev_end = b == before.end() ? kNoFloor : b->second;
    uint32_t prev = kNone, end_node = kNone;  // the op before; the one that ended last
    for (const GpuOp o : ops) {
      const WindowGpuOps::View op = g.At(o);
      uint32_t n = Add(o.kernel ? Kind::kKernel : Kind::kCopy, lane, op.s, op.e);
      row_[n] = o.row;
      (o.kernel ? kernel_node_ : memop_node_)[o.row] = n;
      uint32_t l = op.launch == model::kNoRow ? kNone : api_node_[op.launch];
      const bool launched = l != kNone && obs_start_[l] <= op.s + kMaxClockSkewNs;
      // The device's typical launch latency (for an op whose launch is known) and dispatch gap.
      auto it = typical.find(op.device);
      auto d = dispatch.find(op.device);
      SetUsual(n, launched && it != typical.end() ? it->second : kDefaultLaunchLatencyNs,
               d != dispatch.end() ? d->second : 0);
      if (prev == kNone) floor_[n] = prev_end;
      base_.lane_prev[n] = prev;
      bool late_in_queue = false;
      if (launched) {
        launch_[n] = l;
        int64_t observed = op.s - obs_start_[l];
        // Queued: launched while its stream was busy (see Queued). It starts when the op before
        // it ends plus the observed dispatch gap (so that a shorter op before it moves it), or
        // after its launch's usual latency, whichever is later. Launched onto a free stream, it
        // starts after its launch's observed latency, and no sooner than the device's dispatch
        // gap after the op before it (never binding as observed; it is once a fix makes the
        // stream busy at its launch).
        bool queued = prev != kNone && Queued(op.launch, l, op.s, op.e, prev_end);
        base_.lat[n] = queued ? std::min(observed, UsualLat(n)) : observed;
        if (!queued && prev != kNone)
          base_.gap[n] = std::clamp<int64_t>(op.s - obs_end_[prev], 0, UsualGap(n));
        if (queued) {
          linked_gap_[n] = 1;
          base_.gap[n] = std::max<int64_t>(0, op.s - obs_end_[prev]);
          if (end_node != prev && obs_end_[end_node] > obs_end_[prev]) {
            // Ops of one track that overlap (a tracer that puts a device's copies and kernels
            // on one track): it was queued behind the op that ended last, not the one before.
            WaitForOp(n, end_node);
          }
          late_in_queue = base_.gap[n] > UsualGap(n) + kLateStartNs;
        }
      } else if (prev != kNone) {
        linked_gap_[n] = 1;  // no launch call: keep the observed distance to the predecessor
        base_.gap[n] =
            std::max<int64_t>(0, op.s - obs_end_[prev]);  // unless another stream explains it
        late_in_queue = base_.gap[n] > UsualGap(n) + kLateStartNs;
      } else {
        floor_[n] = op.s;
      }
      if (end_node == kNone || op.e > prev_end) end_node = n;
      prev_end = std::max(prev_end, op.e);
      prev = n;
      device.emplace_back(n, op.device);
      if (late_in_queue || (launch_[n] != kNone && base_.lat[n] > LateLimit(typical, op.device)))
        late.emplace_back(n, op.device);
    }
  }
  RecordedStreamWaits();  // recorded edges first: inference skips their ops
  InferStreamWaits(device, late, typical);
}

}  // namespace gpuscope::analysis
