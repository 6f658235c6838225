#pragma once
// The dependency model of the steady window, and its discrete-event replay.
//
// Nodes: per host thread, its runtime calls in order (outermost calls only), with the host work
// between two calls kept as the "gap" before the later one, plus a first and a last node so that
// a thread without calls (a CPU-only run) is a lane too; per GPU stream, its kernels and copies
// in order. Edges:
//   - lane order: a node starts after the previous one on its thread/stream ends (+ the host gap);
//   - launch: a GPU op starts no earlier than its launch call's start + the launch latency (the
//     observed one when the stream was idle, else the device's typical one);
//   - wait: a call that can block (synchronize, copies, .item()'s copy) ends when the GPU op it
//     waited for ends, + its return latency. Which op is inferred from the call's end time:
//     the last-ending op on the device that ended inside the call (traces rarely record the
//     stream/event argument); a call inside which no op ended waited for nothing (the healthy
//     double-buffered event sync costs nothing);
//   - a GPU op without a known launch call keeps its observed distance to its predecessor;
//   - a thread that sat idle (in no range, frame or call) before a node resumes after the last
//     node another thread ended before it (autograd's backward thread after the main thread);
//   - a GPU op that found its stream idle yet started well after its launch, right as an op of
//     another stream of its device ended, waited for it (an event wait between streams);
//   - a thread that sat in no op, frame or call while the GPU ran, and went on as the last op it
//     had launched on a stream ended, waited for that op (a poll, a spin on a flag the kernel
//     writes, a sync the tracer did not record): the gap is a wait, not host work.
// Traces rarely record the stream/event arguments these edges would need, so every wait and
// handoff is inferred from times; the counts are reported.
// Times before the window are fixed (floors). The window's end is the last end over the GPU
// ops and the threads that launch or wait for them. Replaying the unchanged graph reproduces
// the observed window up to what the model cannot express (replay_error_percent).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/common/name_memo.h"
#include "analysis/replay/what_if.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// Stream waits. A GPU op that started kLateStartNs later than the op before it on its stream +
// the device's dispatch gap (queued, or not linked to a launch), or that found its stream idle
// but started kLateStartNs later than its launch call + the device's usual latency, right after
// an op of another stream ended (within kStreamHandoffNs, or the device's typical launch latency
// when that is longer), waited for that op (an event wait between streams: cudaStreamWaitEvent,
// NCCL/RCCL syncs). The replay infers such edges; the comm-wait rule reads the same windows.
inline constexpr int64_t kLateStartNs = 10'000;
// Longer than this between two queued ops is a wait (another stream's event, work the trace does
// not show), not the device's dispatch gap (1-15 us on the GPUs we have traces of).
inline constexpr int64_t kMaxDispatchGapNs = 50'000;
inline constexpr int64_t kStreamHandoffNs = 20'000;

// One stretch of the critical path, by what held the run there.
struct PathShare {
  std::string category;  // "GPU kernels", "GPU copies", "launch calls", "sync waits", ...
  int64_t ns = 0;
};

struct PathPlace {
  std::string category;
  std::string name;  // kernel, op or call name
  int64_t ns = 0;
};

// One stretch of the critical path, on the row (track) where it is spent: a kernel, a call, a
// gap, a latency or a wait. Category a literal, name a view into the trace's names.
struct PathSegment {
  int64_t start_ns = 0, end_ns = 0;
  std::string_view category, name;
  model::TrackId track = 0;
};

struct ReplayResult {
  int64_t window_ns = 0;              // replayed: last end - window start
  std::vector<PathShare> path;        // critical path composition (when asked), largest first
  std::vector<PathPlace> top_places;  // the places holding most of the path, largest first
  // With steps set (SetSteps): per step, when it began and when it was done in this replay
  // (2 times per step); empty without steps.
  std::vector<int64_t> steps_ns;
};

class ReplayGraph {
 public:
  ReplayGraph(const model::Trace& t, int64_t window_start, int64_t window_end);

  // The observed window over the same nodes (last end - window start).
  int64_t observed_window_ns() const { return observed_; }
  size_t nodes() const { return kind_.size(); }
  uint64_t inferred_waits() const { return inferred_waits_; }
  uint64_t inferred_stream_waits() const { return inferred_stream_waits_; }
  // GPU ops waiting for another stream's event as the trace records it (Kineto's cuda_sync
  // "Stream Wait Event": the waiting stream, the event-record call and its stream).
  uint64_t recorded_stream_waits() const { return recorded_stream_waits_; }
  // Host gaps found waiting for GPU work without a call that says so (InferPolls).
  uint64_t inferred_polls() const { return inferred_polls_; }
  uint64_t broken_edges() const { return broken_; }  // dependency cycles left out (bad data)

  // Replays with `fix` applied (nullptr: as observed). `with_path` also walks the critical path.
  ReplayResult Replay(const WhatIf* fix, bool with_path = false) const;
  // The replayed window with each fix (null: -1), on up to `threads` threads (each but the first
  // with its own copy of the parameters): the same numbers as Replay(fix).window_ns one by one.
  // With `steps`, also each fix's ReplayResult::steps_ns (empty for a null fix).
  std::vector<int64_t> ReplayWindows(const std::vector<const WhatIf*>& fixes, int threads,
                                     std::vector<std::vector<int64_t>>* steps = nullptr) const;
  // A serving trace's steps (their observed host spans [start, end), sorted, not overlapping),
  // so that one replay of the window is cut at them: every replay then reports when each step
  // began and was done (ReplayResult::steps_ns). A step begins at its start, not before the
  // step before it is done; it is done once the host has reached its end and the GPU has
  // finished the work it launched (up to the next step's start): in a run whose host races
  // ahead of a busy GPU, a step takes its GPU time; in a host-bound run, its host time; time
  // between steps (a server waiting for requests) is no step's. Steps are the host thread's
  // that launched the most GPU ops (the loop's); a step's start or end moves with the first
  // node at or after it on that thread, keeping its distance to that node's start (past the
  // thread's last node: to the window's end, and never past it).
  void SetSteps(const std::vector<std::pair<int64_t, int64_t>>& steps);
  // The unchanged replay's critical path as stretches in time, first to last (convert
  // --annotate draws them).
  std::vector<PathSegment> CriticalSegments() const;

  // For each fix, the time its edits remove from the replayed schedule: over the nodes it edits,
  // how much sooner each could start and end than it did, its new durations, gaps, latencies
  // and dependencies taken against the unchanged replay's times. In a schedule of maxima and
  // sums a fix saves at most that much (the invariant that no fix saves more than its edits
  // remove; checked by the tests on every sample). One unchanged replay for all of them; the
  // fixes shared among up to `threads` threads.
  std::vector<int64_t> EditsRemoveNs(const std::vector<const WhatIf*>& fixes,
                                     int threads = 1) const;

 private:
  enum class Kind : uint8_t { kHostEdge, kCall, kKernel, kCopy };
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Params {  // what a fix may change
    std::vector<int64_t> dur, gap, lat;
    std::vector<uint32_t> wait, lane_prev;
    std::vector<uint32_t> xdep;  // the other lane's node this one waited for (kNone: none)
  };

  void BuildHost(int64_t w0, int64_t w1);
  void BuildGpu(int64_t w0, int64_t w1);
  void InferWaits();
  // Host gaps that wait for a GPU op without a call (replay_polls.cc): a handoff edge each.
  void InferPolls();
  // The device's launch queue, read off the launch calls it held (issue 29): per host thread its
  // depth Q (the median of the ops in flight when a held call returned, from at least 3 such
  // calls), and each launch call's wait for the op launched Q calls before it. Returns the calls
  // given a wait. `gpu`: the GPU nodes by observed end; `usual_launch`: per lane, its median
  // launch call.
  std::vector<uint8_t> InferLaunchQueue(const std::vector<uint32_t>& gpu,
                                        const std::vector<int64_t>& usual_launch);
  // The last GPU op (of `by_end`, sorted by end) that ended in (from, to] and was launched before
  // call `n` returned at `returned` (kNone: none).
  uint32_t WaitedFor(const std::vector<uint32_t>& by_end, uint32_t n, int64_t from, int64_t to,
                     int64_t returned) const;
  // GPU ops that waited for another stream's op (see kLateStartNs): a handoff edge each.
  // `device` and `late`: GPU nodes with their devices (all of them; those that started late).
  void InferStreamWaits(const std::vector<std::pair<uint32_t, int>>& device,
                        const std::vector<std::pair<uint32_t, int>>& late,
                        const std::map<int, int64_t>& typical);
  // Whether a GPU op whose stream was free at `stream_free` sat queued behind that work (its
  // launch call `call`, node `l`, had submitted it before) rather than being launched later.
  bool Queued(model::RowId call, uint32_t l, int64_t op_start, int64_t op_end,
              int64_t stream_free) const;
  // The recorded stream waits (before InferStreamWaits, which leaves their ops alone).
  void RecordedStreamWaits();
  // GPU op `n` waits for op `x` (another stream's, or an op of its own track it overlapped): the
  // edge holds it, no longer its launch latency or a gap beyond the device's usual ones.
  void WaitForOp(uint32_t n, uint32_t x);
  // A recorded wait of GPU op n for x (RecordedStreamWaits): the first is n's xdep; of several
  // (an input's copy and a collective before the same kernel), the one that ended last is, and
  // the others are kept in more_waits_ at the dispatch gap, so that a fix that makes one of them
  // end later finds n waiting for it.
  void AddRecordedWait(uint32_t n, uint32_t x);
  // A node's start and end under `p`, from the start and end times of the nodes it depends on
  // (what a replay computes per node; EditsRemoveNs evaluates it on the unchanged times).
  int64_t StartOf(uint32_t v, const Params& p, const std::vector<int64_t>& start,
                  const std::vector<int64_t>& end) const;
  int64_t EndOf(uint32_t v, const Params& p, const std::vector<int64_t>& start,
                const std::vector<int64_t>& end) const;
  // The measured node that ends last (kNone: none): where the replayed window ends.
  uint32_t LastMeasured(const std::vector<int64_t>& end) const;
  // Whether a node starts a gap after its lane's previous node: host nodes, GPU ops queued
  // behind it or without a launch, and ops a fix gave a gap (a graph's dispatch gap).
  bool UsesGap(uint32_t v, const Params& p) const {
    return lane_is_host_[lane_[v]] || linked_gap_[v] || p.gap[v] > 0;
  }
  void Order();
  // Room in every per-node column (the graph has at most a node per call and GPU op, and two
  // per host thread): written once, not copied as they double (capacity never written costs no
  // memory).
  void Reserve(size_t nodes);
  uint32_t Add(Kind k, uint32_t lane, int64_t s, int64_t e);
  // The parameter columns of type T (an undo slot lies in one of them).
  template <typename T>
  static std::array<const std::vector<T>*, 3> Columns(const Params& p) {
    if constexpr (std::is_same_v<T, int64_t>)
      return {&p.dur, &p.gap, &p.lat};
    else
      return {&p.wait, &p.lane_prev, &p.xdep};
  }
  // A fix's edits of the parameters, to restore them. Kept from replay to replay with its
  // capacity (Restore empties it): a fix of a million kernels saves millions of slots, and
  // buffers grown anew for each replay cost a page fault per 4 KB each time.
  struct Undo {
    std::vector<std::pair<int64_t*, int64_t>> i64;
    std::vector<std::pair<uint32_t*, uint32_t>> u32;
    void Save(int64_t& x) { i64.emplace_back(&x, x); }
    void Save(uint32_t& x) { u32.emplace_back(&x, x); }
    void Restore() {
      for (auto it = i64.rbegin(); it != i64.rend(); ++it) *it->first = it->second;
      for (auto it = u32.rbegin(); it != u32.rend(); ++it) *it->first = it->second;
      i64.clear(), u32.clear();
    }
  };
  void Apply(const WhatIf& fix, Params& p, Undo& undo) const;
  // Apply's host spans scaled (WhatIf::host_scale): their gaps and calls shortened.
  void ScaleHost(const WhatIf& fix, Params& p, Undo& undo) const;
  // What one replay works in: parameters (edited and restored), time buffers, the edits' undo.
  struct Workspace {
    Params p;
    std::vector<int64_t> start, end;
    Undo undo;
  };
  // Runs job(k, parameters, start, end, undo) for k in [0, workers): worker 0 in this thread on
  // the graph's own parameters and buffers, the others beside it on workers_ (copies of base_,
  // made before worker 0 starts); a worker's exception is rethrown once all are done.
  template <typename Job>
  void OnWorkers(size_t workers, const Job& job) const;
  // The non-null fixes' indices, the most edits first: workers take the next one as they finish
  // (the longest first, so one worker is not left with the gpu-idle fix and the largest
  // combination while the other idles).
  static std::vector<size_t> Given(const std::vector<const WhatIf*>& fixes);
  static size_t WorkersFor(int threads, size_t jobs);  // threads, at least 1, at most jobs
  // What one fix's edits remove against the unchanged replay in start_/end_ (EditsRemoveNs),
  // applied to `p` and undone; `touched` and `seen` (all 0 between calls) are scratch.
  int64_t EditsRemove(const WhatIf& fix, Params& p, Undo& undo, std::vector<uint32_t>& touched,
                      std::vector<uint8_t>& seen) const;
  // One replay into the given parameters (edited and restored), time buffers and undo (empty
  // before and after).
  ReplayResult ReplayInto(const WhatIf* fix, bool with_path, Params& p, std::vector<int64_t>& start,
                          std::vector<int64_t>& end, Undo& undo) const;
  // A fix that changes the launch queue's entries (removed kernels, launches captured into a
  // graph): each remaining launch call waits for the entry the queue's depth before it.
  void RequeueLaunches(const WhatIf& fix, Params& p, Undo& undo) const;
  void WalkPath(const Params& p, const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                uint32_t last, ReplayResult& out,
                std::vector<PathSegment>* segments = nullptr) const;
  // What the host did at `ts` on a node's thread: (category, place).
  // (category, place): a literal and a view into the trace's names (nothing is copied per node:
  // a path through a million distinct names costs their ids, issue 33).
  using LoaderNames = NameMemo<bool (*)(std::string_view)>;  // IsDataLoaderRange's, memoised
  std::pair<std::string_view, std::string_view> GapCategory(uint32_t node, int64_t ts,
                                                            LoaderNames& loader) const;
  model::RowId RangeAt(uint32_t lane, int64_t ts) const;  // deepest CPU range holding ts

  const model::Trace& t_;
  int64_t w0_ = 0;
  int64_t observed_ = 0;
  uint64_t inferred_waits_ = 0, inferred_stream_waits_ = 0, recorded_stream_waits_ = 0, broken_ = 0;
  uint64_t inferred_polls_ = 0;
  // Per node.
  std::vector<Kind> kind_;
  std::vector<uint32_t> lane_, row_;  // row: API / kernel / memop row (kNone for edges)
  std::vector<int64_t> obs_start_, obs_end_, floor_, post_;
  std::vector<uint32_t> launch_;  // GPU node -> its launch call's node
  // Host node of an idle thread -> the node of another thread whose end it resumed after, and
  // the observed delay.
  std::vector<int64_t> xoff_;
  std::vector<uint8_t> measured_, linked_gap_;
  // GPU ops that wait for more than their xdep (AddRecordedWait), and those waits: (op, offset).
  // They hold while the xdep does (a fix that drops an op's stream waits drops them all).
  std::vector<uint8_t> has_more_;
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, int64_t>>> more_waits_;
  // GPU nodes: their device's typical launch latency and dispatch gap, as an index into the few
  // pairs a trace has (4 bytes per node, not 16; index 0 is the defaults, set by the builder).
  struct Usual {
    int64_t lat = 0, gap = 0;
  };
  std::vector<Usual> usuals_;
  std::map<std::pair<int64_t, int64_t>, uint32_t> usual_index_;  // (lat, gap) -> its index
  std::vector<uint32_t> usual_;
  int64_t UsualLat(uint32_t n) const { return usuals_[usual_[n]].lat; }
  int64_t UsualGap(uint32_t n) const { return usuals_[usual_[n]].gap; }
  // Node n's latency and gap (a pair already held is shared).
  void SetUsual(uint32_t n, int64_t lat, int64_t gap);
  // The launch queues found (InferLaunchQueue): per host thread, its depth and its entries in
  // launch order, for a fix that changes how
  // many entries there are (launches captured into a graph, kernels removed).
  struct QueueEntry {
    uint32_t call = 0;
    uint32_t last = 0;   // the entry's GPU op that ends last
    bool waits = false;  // the call waits for something in the built graph (set once built)
  };
  struct LaunchQueue {
    size_t depth = 0;
    std::vector<QueueEntry> entries;
  };
  std::vector<LaunchQueue> queues_;
  // Edited in place by Replay (a fix's changes) and restored before it returns; with the
  // start/end buffers, this makes Replay non-reentrant: one replay at a time per graph.
  mutable Params base_;
  mutable std::vector<int64_t> start_, end_;
  mutable Undo undo_;
  mutable bool unchanged_ = false;  // start_/end_ hold the replay without a fix
  // OnWorkers' other workers' workspaces (ReplayWindows, EditsRemoveNs), kept from call to call
  // (pricing calls them once per batch): copies of base_, which every job leaves as it found it.
  mutable std::vector<Workspace> workers_;
  std::vector<uint32_t> lane_prev0_;  // lane order as built (fixes may bypass a prefetched copy)
  std::vector<uint32_t> order_;       // topological order of points (node * 2 + is_end)
  // Lookups from trace rows to nodes, and per lane.
  std::vector<uint32_t> api_node_, kernel_node_, memop_node_;
  std::vector<std::vector<uint32_t>> lane_nodes_;  // nodes of each lane, in order
  std::vector<model::TrackId> lane_track_;
  std::vector<uint8_t> lane_is_host_;
  std::vector<std::vector<uint32_t>> lane_cpu_;  // host lanes: their CPU ranges by start
  // SetSteps: per step's start and end (2 marks a step), the node it moves with (kNone: the
  // window's end) and its distance before that node's observed start (or the observed
  // window's end); the GPU ops each step launched, as (node, step).
  std::vector<uint32_t> mark_node_;
  std::vector<int64_t> mark_before_;
  std::vector<std::pair<uint32_t, uint32_t>> step_ops_;
  // ReplayResult::steps_ns of one replay's times.
  std::vector<int64_t> StepsDone(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                 int64_t window_end) const;
};

}  // namespace gpuscope::analysis
