#include "analysis/analyze.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

using model::kNoRow;
using model::RowId;
using model::Trace;

int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) { return std::max<int64_t>(0, std::min(e, b) - std::max(s, a)); }

bool IsSyncApi(std::string_view n) { return n.find("Synchronize") != std::string_view::npos; }
bool IsCopyApi(std::string_view n) {
  return n.find("Memcpy") != std::string_view::npos || n.find("memcpy") != std::string_view::npos;
}
bool IsItemOp(std::string_view n) { return n == "aten::item" || n == "aten::_local_scalar_dense"; }

// A GPU op that starts a busy interval, and the idle gap before it.
struct Gap {
  int device = 0;
  int64_t start = 0, end = 0;
  RowId next_launch = kNoRow;  // API row that launched the op ending the gap (kNoRow: none / window end)
  std::string cause;
  Where where;
};

// Everything the rules share: the window, the GPU busy timeline, the per-iteration divisor.
class Context {
 public:
  Context(const Trace& t, const AnalyzeOptions& o)
      : t_(t), o_(o), steady_(FindSteadyState(t, o.steady)), at_(t) {
    w0_ = steady_.start_ns, w1_ = steady_.end_ns;
    iterations_ = steady_.iterations.empty() ? 0 : steady_.steady_count();
    BuildTimeline();
  }

  const Trace& t() const { return t_; }
  const Attributor& at() const { return at_; }
  const AnalyzeOptions& o() const { return o_; }
  const SteadyState& steady() const { return steady_; }
  bool In(int64_t ts) const { return ts >= w0_ && ts < w1_; }
  int64_t window() const { return std::max<int64_t>(1, w1_ - w0_); }
  double PerIteration(double count) const { return iterations_ ? count / static_cast<double>(iterations_) : count; }
  std::string PerIterationText(double count) const {
    return iterations_ ? base::FormatFixed(PerIteration(count), 1) + " per iteration"
                       : base::FormatCount(static_cast<uint64_t>(count)) + " in the window (no iterations)";
  }
  int64_t Iteration(int64_t ts) const {
    const auto& its = steady_.iterations;
    auto it = std::upper_bound(its.begin(), its.end(), ts, [](int64_t v, const IterationSpan& s) { return v < s.start_ns; });
    if (it == its.begin()) return -1;
    --it;
    return ts < it->end_ns() ? it->number : -1;
  }
  double Percent(int64_t ns) const { return 100.0 * static_cast<double>(ns) / static_cast<double>(window()); }

  std::vector<Gap>& gaps() { return gaps_; }
  const std::vector<Gap>& gaps() const { return gaps_; }
  int64_t busy_ns() const { return busy_; }
  int devices() const { return devices_; }
  // Idle time before a GPU op that starts a busy interval on its device (0 when it does not).
  int64_t IdleBefore(int device, int64_t start) const {
    auto it = gap_before_.find(Key(device, start));
    return it == gap_before_.end() ? 0 : it->second;
  }
  // GPU idle time (all devices) inside [a, b].
  int64_t IdleWithin(int64_t a, int64_t b) const {
    int64_t sum = 0;
    auto it = std::lower_bound(gaps_by_end_.begin(), gaps_by_end_.end(), a,
                               [](const std::pair<int64_t, int64_t>& g, int64_t v) { return g.first <= v; });
    for (; it != gaps_by_end_.end(); ++it) {
      int64_t gs = it->second, ge = it->first;
      if (ge - max_gap_ >= b) break;  // every later gap starts after b
      if (gs < b) sum += std::max<int64_t>(0, std::min(ge, b) - std::max(gs, a));
    }
    return sum;
  }
  // Time of [a, b) on `device` during which no kernel runs there.
  int64_t Exposed(int device, int64_t a, int64_t b) const {
    auto it = kernel_busy_.find(device);
    if (it == kernel_busy_.end()) return b - a;
    const auto& v = it->second;
    int64_t covered = 0;
    auto k = std::upper_bound(v.begin(), v.end(), std::make_pair(a, INT64_MAX));
    if (k != v.begin()) --k;
    for (; k != v.end() && k->first < b; ++k) covered += Overlap(k->first, k->second, a, b);
    return std::max<int64_t>(0, (b - a) - covered);
  }
  // Start of the first GPU op at or after ts (any device); INT64_MAX if none.
  int64_t NextGpuStart(int64_t ts) const {
    auto it = std::lower_bound(op_starts_.begin(), op_starts_.end(), ts);
    return it == op_starts_.end() ? INT64_MAX : *it;
  }

 private:
  static uint64_t Key(int device, int64_t start) {
    return (static_cast<uint64_t>(static_cast<uint16_t>(device)) << 48) ^ static_cast<uint64_t>(start);
  }

  void BuildTimeline() {
    struct Op { int64_t s, e; RowId launch; };
    std::map<int, std::vector<Op>> per_device;
    auto add = [&](int64_t s, int64_t d, int dev, RowId launch) {
      op_starts_.push_back(s);
      if (s + d <= w0_ || s >= w1_) return;
      per_device[dev].push_back({std::max(s, w0_), std::min(s + d, w1_), launch});
    };
    for (size_t i = 0; i < t_.kernels.size(); ++i) add(t_.kernels.start_ns[i], t_.kernels.dur_ns[i], t_.kernels.device[i], t_.kernels.launch[i]);
    for (size_t i = 0; i < t_.memops.size(); ++i) add(t_.memops.start_ns[i], t_.memops.dur_ns[i], t_.memops.device[i], t_.memops.launch[i]);
    std::sort(op_starts_.begin(), op_starts_.end());
    devices_ = static_cast<int>(per_device.size());
    // Kernel-only busy intervals per device, merged (for the overlap of copies with compute).
    for (size_t i = 0; i < t_.kernels.size(); ++i) kernel_busy_[t_.kernels.device[i]].emplace_back(t_.kernels.start_ns[i], t_.kernels.end_ns(i));
    for (auto& [dev, v] : kernel_busy_) {
      std::sort(v.begin(), v.end());
      std::vector<std::pair<int64_t, int64_t>> merged;
      for (const auto& iv : v) {
        if (!merged.empty() && iv.first <= merged.back().second) merged.back().second = std::max(merged.back().second, iv.second);
        else merged.push_back(iv);
      }
      v.swap(merged);
    }
    for (auto& [dev, ops] : per_device) {
      std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.s < b.s; });
      int64_t cur_s = ops[0].s, cur_e = ops[0].e;
      auto gap = [&](int64_t a, int64_t b, RowId launch) {
        if (b <= a) return;
        gaps_.push_back({dev, a, b, launch, {}, {}});
        gap_before_[Key(dev, b)] = b - a;
      };
      gap(w0_, cur_s, ops[0].launch);
      for (size_t i = 1; i < ops.size(); ++i) {
        if (ops[i].s > cur_e) {
          busy_ += cur_e - cur_s;
          gap(cur_e, ops[i].s, ops[i].launch);
          cur_s = ops[i].s;
        }
        cur_e = std::max(cur_e, ops[i].e);
      }
      busy_ += cur_e - cur_s;
      gap(cur_e, w1_, kNoRow);
    }
    std::sort(gaps_.begin(), gaps_.end(), [](const Gap& a, const Gap& b) { return a.start < b.start; });
    for (const auto& g : gaps_) gaps_by_end_.emplace_back(g.end, g.start), max_gap_ = std::max(max_gap_, g.end - g.start);
    std::sort(gaps_by_end_.begin(), gaps_by_end_.end());
  }

  const Trace& t_;
  const AnalyzeOptions& o_;
  SteadyState steady_;
  Attributor at_;
  int64_t w0_ = 0, w1_ = 0;
  size_t iterations_ = 0;
  std::vector<Gap> gaps_;
  std::vector<std::pair<int64_t, int64_t>> gaps_by_end_;  // (end, start)
  int64_t max_gap_ = 0;
  std::unordered_map<uint64_t, int64_t> gap_before_;
  std::vector<int64_t> op_starts_;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> kernel_busy_;
  int64_t busy_ = 0;
  int devices_ = 0;
};

// Sweeps a start-sorted table alongside time-sorted queries, keeping the rows that may overlap
// the current query (started before its end, not ended before its start).
template <typename Table>
class Sweep {
 public:
  explicit Sweep(const Table& table) : t_(table) {}
  // Rows overlapping [a, b); queries must come with non-decreasing a.
  const std::vector<size_t>& Overlapping(int64_t a, int64_t b) {
    while (next_ < t_.size() && t_.start_ns[next_] < b) active_.push_back(next_++);
    std::vector<size_t> keep;
    for (size_t r : active_) {
      if (t_.end_ns(r) > a) keep.push_back(r);
    }
    active_.swap(keep);
    out_.clear();
    for (size_t r : active_) {
      if (t_.start_ns[r] < b) out_.push_back(r);
    }
    return out_;
  }

 private:
  const Table& t_;
  size_t next_ = 0;
  std::vector<size_t> active_, out_;
};

// A top-level frame, or one that also holds the launch ending the gap, is the loop around
// everything (the script's <module>), not work that delays the GPU.
bool IsOuterFrame(const Context& c, size_t frame, const Gap& g) {
  const Trace& t = c.t();
  if (t.python.parent[frame] == kNoRow) return true;  // a top-level frame: the script itself
  if (g.next_launch == kNoRow) return false;
  int64_t launch = t.api.start_ns[g.next_launch];
  return launch >= t.python.start_ns[frame] && launch < t.python.end_ns(frame);
}

// Names each gap's cause from what the host did during it (see the gpu-idle rule).
void ClassifyGaps(Context& c) {
  const Trace& t = c.t();
  Sweep<model::ApiTable> apis(t.api);
  Sweep<model::CpuRangeTable> ops(t.cpu);
  Sweep<model::PythonFrameTable> frames(t.python);
  for (Gap& g : c.gaps()) {
    int64_t len = g.end - g.start;
    model::TrackId thread = g.next_launch != kNoRow ? t.api.track[g.next_launch] : UINT32_MAX;
    auto on_thread = [&](model::TrackId tr) { return thread == UINT32_MAX || tr == thread; };
    int64_t sync = 0, copy = 0;
    std::string sync_name, copy_name;
    for (size_t r : apis.Overlapping(g.start, g.end)) {
      if (t.api.domain[r] == model::ApiDomain::kOs || !on_thread(t.api.track[r])) continue;
      std::string_view n = t.str(t.api.name[r]);
      int64_t o = Overlap(t.api.start_ns[r], t.api.end_ns(r), g.start, g.end);
      if (IsSyncApi(n) && o > sync) sync = o, sync_name = std::string(n);
      else if (IsCopyApi(n) && o > copy) copy = o, copy_name = std::string(n);
    }
    size_t best = SIZE_MAX;
    int64_t best_overlap = 0;
    int best_depth = -1;
    for (size_t r : ops.Overlapping(g.start, g.end)) {
      if (t.cpu.kind[r] != model::CpuRangeKind::kOp || !on_thread(t.cpu.track[r])) continue;
      int64_t o = Overlap(t.cpu.start_ns[r], t.cpu.end_ns(r), g.start, g.end);
      // The deepest op that covers at least half the gap, else the one covering most of it.
      bool covers = 2 * o >= len;
      bool better = covers ? (best_overlap * 2 < len || t.cpu.depth[r] > best_depth) : (best_overlap * 2 < len && o > best_overlap);
      if (better) best = r, best_overlap = o, best_depth = t.cpu.depth[r];
    }
    // The innermost user Python frame covering at least half the gap (Python work between ops).
    size_t frame = SIZE_MAX;
    for (size_t r : frames.Overlapping(g.start, g.end)) {
      if (!on_thread(t.python.track[r]) || c.at().UserFrame(static_cast<RowId>(r)) != r) continue;
      int64_t o = Overlap(t.python.start_ns[r], t.python.end_ns(r), g.start, g.end);
      if (2 * o >= len && (frame == SIZE_MAX || t.python.start_ns[r] >= t.python.start_ns[frame])) frame = r;
    }
    bool launch_late = g.next_launch != kNoRow && t.api.start_ns[g.next_launch] >= g.start;
    if (2 * sync >= len) {
      g.cause = "host sync: " + sync_name;
    } else if (best != SIZE_MAX && IsItemOp(t.str(t.cpu.name[best])) && 2 * best_overlap >= len) {
      g.cause = "host sync: " + std::string(t.str(t.cpu.name[best]));
    } else if (2 * copy >= len) {
      g.cause = "memory copy: " + copy_name;
    } else if (best != SIZE_MAX && 2 * best_overlap >= len) {
      g.cause = "CPU op: " + std::string(t.str(t.cpu.name[best]));
    } else if (frame != SIZE_MAX && !IsOuterFrame(c, frame, g)) {
      g.cause = "Python: " + std::string(t.str(t.python.name[frame]));
    } else if (launch_late) {
      g.cause = "launch late";
    } else if (g.next_launch == kNoRow && t.api.size() > 0) {
      g.cause = "no GPU work queued (end of window / unlinked op)";
    } else {
      g.cause = "unknown";
    }
    if (g.cause.rfind("Python: ", 0) == 0) {
      g.where.python = std::string(t.str(t.python.name[frame]));
    } else if (best != SIZE_MAX) {
      g.where.op = std::string(t.str(t.cpu.name[best]));
      g.where.python = c.at().PythonOf(static_cast<RowId>(best));
    } else if (g.next_launch != kNoRow) {
      g.where = c.at().Api(g.next_launch);
    }
  }
}

Finding Make(const Context& c, std::string_view rule, int64_t impact) {
  Finding f;
  const RuleInfo* info = FindRule(rule);
  f.rule = std::string(rule);
  f.title = std::string(info->title);
  f.advice = std::string(info->advice);
  f.impact_ns = impact;
  f.impact_percent = c.Percent(impact);
  f.severity = std::string(SeverityFor(f.impact_percent));
  return f;
}

void AddEvidence(const Context& c, Finding& f, int64_t start, int64_t dur, std::string what) {
  if (f.evidence.size() >= c.o().evidence) return;
  f.evidence.push_back({start, dur, c.Iteration(start), std::move(what)});
}

// ---- rules ----

void GpuIdle(const Context& c, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const Gap*>> by_cause;
  for (const auto& g : c.gaps()) {
    if (g.end - g.start >= c.o().idle_gap_ns) by_cause[g.cause].push_back(&g);
  }
  // The causes that cost at least 1% of the window, at most 5 (the full split is in the summary).
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (auto& [cause, gaps] : by_cause) {
    int64_t total = 0;
    for (const Gap* g : gaps) total += g->end - g->start;
    ranked.emplace_back(total, cause);
  }
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t k = 0; k < ranked.size(); ++k) {
    if (k >= 5 || c.Percent(ranked[k].first) < 1.0) by_cause.erase(ranked[k].second);
  }
  for (auto& [cause, gaps] : by_cause) {
    int64_t total = 0;
    std::map<std::pair<std::string, std::string>, int64_t> where;
    for (const Gap* g : gaps) total += g->end - g->start, where[{g->where.python, g->where.op}] += g->end - g->start;
    Finding f = Make(c, "gpu-idle", total);
    f.title = "GPU idle: " + cause;
    auto top = std::max_element(where.begin(), where.end(), [](auto& a, auto& b) { return a.second < b.second; });
    f.where.python = top->first.first;
    f.where.op = top->first.second;
    f.detail = base::FormatCount(gaps.size()) + " gaps >= " + base::FormatDuration(c.o().idle_gap_ns) + " (" +
               c.PerIterationText(static_cast<double>(gaps.size())) + "), " + base::FormatDuration(total) + " in total";
    std::sort(gaps.begin(), gaps.end(), [](const Gap* a, const Gap* b) { return a->end - a->start > b->end - b->start; });
    for (const Gap* g : gaps) {
      AddEvidence(c, f, g->start, g->end - g->start,
                  "GPU " + std::to_string(g->device) + " idle" + (g->where.op.empty() ? "" : " during " + g->where.op));
    }
    out.push_back(std::move(f));
  }
}

void LaunchBound(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  int64_t idle = 0;
  size_t count = 0;
  std::map<std::string, size_t> kernels;
  std::map<std::pair<std::string, std::string>, size_t> from;
  std::vector<size_t> rows;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.In(t.kernels.start_ns[i]) || t.kernels.dur_ns[i] >= c.o().tiny_kernel_ns) continue;
    RowId l = t.kernels.launch[i];
    if (l == kNoRow || t.api.dur_ns[l] <= t.kernels.dur_ns[i]) continue;
    int64_t before = c.IdleBefore(t.kernels.device[i], t.kernels.start_ns[i]);
    if (before <= 0) continue;
    idle += before;
    ++count;
    rows.push_back(i);
    ++kernels[std::string(t.str(t.kernels.name[i]))];
    Where w = c.at().Api(l);
    ++from[{w.python, w.op}];
  }
  if (count == 0) return;
  Finding f = Make(c, "launch-bound", idle);
  auto top = std::max_element(from.begin(), from.end(), [](auto& a, auto& b) { return a.second < b.second; });
  f.where.python = top->first.first;
  f.where.op = top->first.second;
  std::vector<std::pair<size_t, std::string>> ranked;
  for (auto& [n, k] : kernels) ranked.emplace_back(k, n);
  std::sort(ranked.rbegin(), ranked.rend());
  f.where.kernel = ranked.front().second;
  f.detail = base::FormatCount(count) + " tiny kernels (< " + base::FormatDuration(c.o().tiny_kernel_ns) +
             ", launch call longer than the kernel) after GPU idle, " + c.PerIterationText(static_cast<double>(count));
  for (const auto& [k, n] : ranked) {
    if (f.evidence.size() >= c.o().evidence) break;
    f.evidence.push_back({0, 0, -1, n + ": " + c.PerIterationText(static_cast<double>(k))});
  }
  out.push_back(std::move(f));
}

void CpuOpStorm(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  struct Group {
    size_t ops = 0;
    int64_t op_ns = 0;
    std::unordered_set<RowId> frames;
    std::map<std::string, size_t> names;
    std::vector<size_t> rows;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kOp || !c.In(cpu.start_ns[i]) || cpu.dur_ns[i] >= c.o().tiny_op_ns) continue;
    RowId p = cpu.parent[i];
    // Only ops issued from Python or a user range count: the child ops of a framework op
    // (namespaced: aten::mul's aten::empty, cudnn_convolution's helpers) are its implementation.
    if (p != kNoRow && cpu.kind[p] == model::CpuRangeKind::kOp && t.str(cpu.name[p]).find("::") != std::string_view::npos) {
      continue;
    }
    RowId frame = c.at().UserFrameOfCpu(static_cast<RowId>(i));
    std::string key = frame != kNoRow ? std::string(t.str(t.python.name[frame]))
                                      : p != kNoRow ? std::string(t.str(cpu.name[p])) : std::string("(top level)");
    Group& g = groups[key];
    ++g.ops;
    g.op_ns += cpu.dur_ns[i];
    if (frame != kNoRow) g.frames.insert(frame);
    ++g.names[std::string(t.str(cpu.name[i]))];
    if (g.rows.size() < 64) g.rows.push_back(i);
  }
  for (auto& [key, g] : groups) {
    if (c.PerIteration(static_cast<double>(g.ops)) < c.o().storm_ops_per_iteration) continue;
    int64_t base = g.op_ns;
    double calls = static_cast<double>(g.frames.empty() ? std::max<size_t>(1, c.steady().steady_count()) : g.frames.size());
    if (!g.frames.empty()) {
      base = 0;
      for (RowId f : g.frames) base += t.python.dur_ns[f];
    }
    double ops_per_call = static_cast<double>(g.ops) / calls;
    int64_t impact = static_cast<int64_t>(static_cast<double>(base) * (1.0 - 1.0 / std::max(1.0, ops_per_call)));
    Finding f = Make(c, "cpu-op-storm", impact);
    f.where.python = g.frames.empty() ? "" : key;
    std::vector<std::pair<size_t, std::string>> ranked;
    for (auto& [n, k] : g.names) ranked.emplace_back(k, n);
    std::sort(ranked.rbegin(), ranked.rend());
    f.where.op = g.frames.empty() ? key : ranked.front().second;
    std::string mix;
    for (size_t k = 0; k < ranked.size() && k < 4; ++k) {
      mix += (k ? ", " : "") + ranked[k].second + " x" + base::FormatCount(ranked[k].first);
    }
    f.detail = base::FormatCount(g.ops) + " ops < " + base::FormatDuration(c.o().tiny_op_ns) + " (" +
               c.PerIterationText(static_cast<double>(g.ops)) + "): " + mix;
    if (!g.frames.empty()) {
      std::vector<RowId> frames(g.frames.begin(), g.frames.end());
      std::sort(frames.begin(), frames.end(), [&](RowId a, RowId b) { return t.python.dur_ns[a] > t.python.dur_ns[b]; });
      for (RowId fr : frames) AddEvidence(c, f, t.python.start_ns[fr], t.python.dur_ns[fr], "call of " + key);
    } else {
      for (size_t r : g.rows) AddEvidence(c, f, cpu.start_ns[r], cpu.dur_ns[r], std::string(t.str(cpu.name[r])));
    }
    out.push_back(std::move(f));
  }
}

void HostSync(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  bool gpu = c.devices() > 0;
  struct Sync { int64_t s, e; std::string what; Where where; int64_t dtoh_bytes = -1; RowId op = kNoRow; };
  std::vector<Sync> syncs;
  std::unordered_map<RowId, size_t> by_op;
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (!c.In(t.cpu.start_ns[i]) || !IsItemOp(t.str(t.cpu.name[i]))) continue;
    RowId p = t.cpu.parent[i];
    if (p != kNoRow && IsItemOp(t.str(t.cpu.name[p]))) continue;  // _local_scalar_dense inside item
    Sync s{t.cpu.start_ns[i], t.cpu.end_ns(i), std::string(t.str(t.cpu.name[i])), {}, -1, static_cast<RowId>(i)};
    s.where.op = s.what;
    s.where.python = c.at().PythonOf(static_cast<RowId>(i));
    by_op[static_cast<RowId>(i)] = syncs.size();
    syncs.push_back(std::move(s));
  }
  for (size_t i = 0; i < t.api.size(); ++i) {
    std::string_view n = t.str(t.api.name[i]);
    if (!c.In(t.api.start_ns[i]) || !IsSyncApi(n) || t.api.domain[i] == model::ApiDomain::kOs) continue;
    bool inside_item = false;
    for (RowId r = t.api.enclosing_op[i]; r != kNoRow && !inside_item; r = t.cpu.parent[r]) inside_item = by_op.count(r) > 0;
    if (inside_item) continue;
    Sync s{t.api.start_ns[i], t.api.end_ns(i), std::string(n), c.at().Api(static_cast<RowId>(i)), -1, kNoRow};
    if (s.where.op.empty()) s.where.op = s.what;
    syncs.push_back(std::move(s));
  }
  if (syncs.empty()) return;
  // The small device-to-host copy each .item() forced.
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (t.memops.kind[m] != model::MemopKind::kDtoH || t.memops.launch[m] == kNoRow) continue;
    for (RowId r = t.api.enclosing_op[t.memops.launch[m]]; r != kNoRow; r = t.cpu.parent[r]) {
      auto it = by_op.find(r);
      if (it != by_op.end()) {
        syncs[it->second].dtoh_bytes = std::max<int64_t>(0, t.memops.bytes[m]);
        break;
      }
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<const Sync*>> groups;
  for (const auto& s : syncs) groups[{s.where.python, s.what}].push_back(&s);
  for (auto& [key, list] : groups) {
    int64_t impact = 0;
    std::vector<std::pair<int64_t, const Sync*>> costs;
    for (const Sync* s : list) {
      int64_t cost = gpu ? c.IdleWithin(s->s, std::max(s->e, std::min(c.NextGpuStart(s->e), s->e + c.window()))) : s->e - s->s;
      impact += cost;
      costs.emplace_back(cost, s);
    }
    Finding f = Make(c, "host-sync", impact);
    f.where.python = key.first;
    f.where.op = list.front()->where.op;
    size_t with_copy = 0;
    int64_t bytes = 0;
    for (const Sync* s : list) {
      if (s->dtoh_bytes >= 0) ++with_copy, bytes += s->dtoh_bytes;
    }
    f.detail = base::FormatCount(list.size()) + " x " + key.second + " (" + c.PerIterationText(static_cast<double>(list.size())) + ")" +
               (with_copy ? ", " + base::FormatCount(with_copy) + " with a device-to-host copy (" + base::FormatBytes(bytes) + ")" : "") +
               (gpu ? ", GPU idle after them: " + base::FormatDuration(impact) : ", host time: " + base::FormatDuration(impact));
    std::sort(costs.rbegin(), costs.rend());
    for (auto& [cost, s] : costs) {
      AddEvidence(c, f, s->s, s->e - s->s,
                  s->what + (s->dtoh_bytes >= 0 ? " + DtoH " + base::FormatBytes(s->dtoh_bytes) : "") +
                      (gpu ? ", GPU idle " + base::FormatDuration(cost) : ""));
    }
    out.push_back(std::move(f));
  }
}

void Copies(const Context& c, std::vector<Finding>& out, AnalysisSummary& summary) {
  const Trace& t = c.t();
  struct Acc { size_t n = 0; int64_t ns = 0, bytes = 0, api_ns = 0, exposed = 0; std::map<std::pair<std::string, std::string>, int64_t> where; std::vector<size_t> rows; };
  Acc loop, sync, pageable, small;
  size_t host_unknown = 0;
  auto add = [&](Acc& a, size_t m, int64_t weight) {
    ++a.n;
    a.ns += t.memops.dur_ns[m];
    a.bytes += std::max<int64_t>(0, t.memops.bytes[m]);
    RowId l = t.memops.launch[m];
    if (l != kNoRow) a.api_ns += t.api.dur_ns[l];
    Where w = c.at().Memop(m);
    a.where[{w.python, w.op}] += weight;
    if (a.rows.size() < 256) a.rows.push_back(m);
  };
  // The next API call on the same thread: an async copy followed by a synchronize blocks too.
  std::vector<RowId> next_on_thread;
  if (t.memops.size()) {
    next_on_thread.assign(t.api.size(), kNoRow);
    std::unordered_map<model::TrackId, RowId> last;
    for (size_t i = 0; i < t.api.size(); ++i) {
      if (t.api.domain[i] == model::ApiDomain::kOs) continue;
      auto it = last.find(t.api.track[i]);
      if (it != last.end()) next_on_thread[it->second] = static_cast<RowId>(i);
      last[t.api.track[i]] = static_cast<RowId>(i);
    }
  }
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (!c.In(t.memops.start_ns[m]) || t.memops.kind[m] == model::MemopKind::kMemset) continue;
    auto kind = t.memops.kind[m];
    bool host_side = kind == model::MemopKind::kHtoD || kind == model::MemopKind::kDtoH;
    model::MemoryKind host = kind == model::MemopKind::kHtoD ? t.memops.src[m] : t.memops.dst[m];
    if (host_side) {
      add(loop, m, t.memops.dur_ns[m]);
      loop.exposed += c.Exposed(t.memops.device[m], t.memops.start_ns[m], t.memops.end_ns(m));
    }
    bool is_pageable = host_side && host == model::MemoryKind::kPageable;
    if (host_side && (host == model::MemoryKind::kHost || host == model::MemoryKind::kUnknown)) ++host_unknown;
    if (is_pageable) add(pageable, m, t.memops.dur_ns[m]);
    RowId l = t.memops.launch[m];
    if (l != kNoRow) {
      std::string_view api = t.str(t.api.name[l]);
      bool async = api.find("Async") != std::string_view::npos;
      RowId next = next_on_thread[l];
      if (IsCopyApi(api) && (!async || is_pageable)) {
        add(sync, m, t.api.dur_ns[l]);
      } else if (IsCopyApi(api) && next != kNoRow && IsSyncApi(t.str(t.api.name[next]))) {
        add(sync, m, t.api.dur_ns[next]);  // blocked in the synchronize that follows it
        sync.api_ns += t.api.dur_ns[next] - t.api.dur_ns[l];
      }
    }
    if (t.memops.bytes[m] >= 0 && t.memops.bytes[m] < c.o().small_copy_bytes) add(small, m, l != kNoRow ? t.api.dur_ns[l] : 0);
  }
  summary.host_pinning = host_unknown ? base::FormatCount(host_unknown) + " host<->device copies with pinning not recorded by the tool (unknown)" : "known";
  auto top_where = [](const Acc& a) {
    auto it = std::max_element(a.where.begin(), a.where.end(), [](auto& x, auto& y) { return x.second < y.second; });
    return it->first;
  };
  auto emit = [&](const char* rule, const Acc& a, int64_t impact, std::string detail) {
    Finding f = Make(c, rule, impact);
    auto w = top_where(a);
    f.where.python = w.first;
    f.where.op = w.second;
    f.detail = std::move(detail);
    std::vector<size_t> rows = a.rows;
    std::sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return t.memops.dur_ns[x] > t.memops.dur_ns[y]; });
    for (size_t m : rows) {
      RowId l = t.memops.launch[m];
      AddEvidence(c, f, t.memops.start_ns[m], t.memops.dur_ns[m],
                  std::string(t.str(t.memops.name[m])) + ", " +
                      (t.memops.bytes[m] >= 0 ? base::FormatBytes(t.memops.bytes[m]) : std::string("size unknown")) +
                      (l != kNoRow ? " by " + std::string(t.str(t.api.name[l])) : ""));
    }
    out.push_back(std::move(f));
  };
  if (loop.n && !c.steady().iterations.empty()) {
    emit("memcpy-in-loop", loop, loop.exposed,
         base::FormatCount(loop.n) + " host<->device copies (" + c.PerIterationText(static_cast<double>(loop.n)) + "), " +
             base::FormatBytes(loop.bytes) + ", " + base::FormatDuration(loop.ns) + " on the GPU, " +
             base::FormatDuration(loop.exposed) + " of it not overlapped by kernels");
  }
  if (sync.n) {
    emit("memcpy-sync", sync, sync.api_ns,
         base::FormatCount(sync.n) + " copies block the host (" + c.PerIterationText(static_cast<double>(sync.n)) + "), " +
             base::FormatDuration(sync.api_ns) + " in their calls");
  }
  if (pageable.n) {
    emit("memcpy-pageable", pageable, pageable.ns / 2,
         base::FormatCount(pageable.n) + " copies from/to pageable memory, " + base::FormatBytes(pageable.bytes) + ", " +
             base::FormatDuration(pageable.ns) + " on the GPU (impact: estimated half of it)");
  }
  double small_per_iter = c.PerIteration(static_cast<double>(small.n));
  if (small.n && small_per_iter >= c.o().small_copies_per_iteration) {
    emit("small-memcpy", small, static_cast<int64_t>(static_cast<double>(small.api_ns) * (1.0 - 1.0 / small_per_iter)),
         base::FormatCount(small.n) + " copies < " + base::FormatBytes(c.o().small_copy_bytes) + " (" +
             c.PerIterationText(static_cast<double>(small.n)) + "), " + base::FormatDuration(small.api_ns) + " in their calls");
  }
}

void KernelOutliersAndHotspots(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  struct Group { std::vector<size_t> rows; };
  std::map<std::tuple<model::StringId, model::Dim3, model::Dim3>, Group> groups;
  std::map<model::StringId, int64_t> by_name;
  int64_t total = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.In(t.kernels.start_ns[i])) continue;
    groups[{t.kernels.name[i], t.kernels.grid[i], t.kernels.block[i]}].rows.push_back(i);
    by_name[t.kernels.name[i]] += t.kernels.dur_ns[i];
    total += t.kernels.dur_ns[i];
  }
  for (auto& [key, g] : groups) {
    if (g.rows.size() < 5) continue;
    std::vector<int64_t> d;
    for (size_t r : g.rows) d.push_back(t.kernels.dur_ns[r]);
    std::vector<int64_t> s = d;
    std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
    int64_t med = s[s.size() / 2];
    for (auto& v : s) v = std::abs(v - med);
    std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
    double mad = static_cast<double>(s[s.size() / 2]);
    double limit = static_cast<double>(med) + std::max(c.o().outlier_mads * 1.4826 * mad, 0.5 * static_cast<double>(med));
    int64_t impact = 0;
    std::vector<size_t> outliers;
    for (size_t r : g.rows) {
      if (static_cast<double>(t.kernels.dur_ns[r]) > limit) impact += t.kernels.dur_ns[r] - med, outliers.push_back(r);
    }
    if (outliers.empty()) continue;
    Finding f = Make(c, "kernel-outlier", impact);
    f.where = c.at().Kernel(outliers.front());
    f.detail = base::FormatCount(outliers.size()) + " of " + base::FormatCount(g.rows.size()) + " instances slower than " +
               base::FormatDuration(static_cast<int64_t>(limit)) + " (median " + base::FormatDuration(med) + ")";
    std::sort(outliers.begin(), outliers.end(), [&](size_t a, size_t b) { return t.kernels.dur_ns[a] > t.kernels.dur_ns[b]; });
    for (size_t r : outliers) {
      AddEvidence(c, f, t.kernels.start_ns[r], t.kernels.dur_ns[r],
                  base::FormatFixed(static_cast<double>(t.kernels.dur_ns[r]) / static_cast<double>(std::max<int64_t>(1, med)), 1) + "x the median");
    }
    out.push_back(std::move(f));
  }
  std::vector<std::pair<int64_t, model::StringId>> ranked;
  for (auto& [n, ns] : by_name) ranked.emplace_back(ns, n);
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t k = 0; k < ranked.size() && k < 3; ++k) {
    double share = total ? static_cast<double>(ranked[k].first) / static_cast<double>(total) : 0;
    if (share < c.o().hotspot_share) break;
    Finding f = Make(c, "kernel-hotspot", 0);
    f.severity = "info";
    f.where.kernel = base::Demangle(t.str(ranked[k].second));
    f.detail = base::FormatFixed(100 * share, 1) + "% of the steady-state kernel time (" + base::FormatDuration(ranked[k].first) + ")";
    out.push_back(std::move(f));
  }
}

}  // namespace

AnalysisReport Analyze(const Trace& t, const AnalyzeOptions& o) {
  AnalysisReport r;
  Context c(t, o);
  r.steady = c.steady();
  auto& s = r.summary;
  auto [lo, hi] = t.TimeSpan();
  s.wall_ns = hi - lo;
  s.window_ns = c.window();
  s.devices = c.devices();
  for (size_t i = 0; i < t.kernels.size(); ++i) s.kernel_ns += c.In(t.kernels.start_ns[i]) ? t.kernels.dur_ns[i] : 0;
  for (size_t i = 0; i < t.memops.size(); ++i) s.memcpy_ns += c.In(t.memops.start_ns[i]) ? t.memops.dur_ns[i] : 0;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.api.domain[i] != model::ApiDomain::kOs && c.In(t.api.start_ns[i])) s.api_ns += t.api.dur_ns[i];
  }
  ClassifyGaps(c);
  std::map<std::string, IdleCause> idle;
  for (const auto& g : c.gaps()) {
    IdleCause& ic = idle[g.cause.substr(0, g.cause.find(':'))];
    ic.cause = g.cause.substr(0, g.cause.find(':'));
    ic.ns += g.end - g.start;
    ++ic.gaps;
  }
  for (auto& [k, v] : idle) s.idle.push_back(v);
  std::sort(s.idle.begin(), s.idle.end(), [](const IdleCause& a, const IdleCause& b) { return a.ns > b.ns; });
  if (c.devices() == 0) {
    s.verdict = "CPU only: no GPU work in the trace";
  } else {
    s.gpu_busy_pct = 100.0 * static_cast<double>(c.busy_ns()) / (static_cast<double>(c.window()) * c.devices());
    s.verdict = s.gpu_busy_pct >= 80 ? "GPU-bound: the GPU is busy most of the steady state"
                : s.gpu_busy_pct < 50 ? "CPU-bound: the GPU waits for the host " + base::FormatFixed(100 - s.gpu_busy_pct, 0) + "% of the steady state"
                                      : "mixed: the GPU idles " + base::FormatFixed(100 - s.gpu_busy_pct, 0) + "% of the steady state";
  }
  std::vector<Finding> f;
  GpuIdle(c, f);
  LaunchBound(c, f);
  CpuOpStorm(c, f);
  HostSync(c, f);
  Copies(c, f, s);
  KernelOutliersAndHotspots(c, f);
  if (s.gpu_busy_pct >= 0 && s.gpu_busy_pct < 100 * o.low_utilization) {
    Finding lu = Make(c, "low-utilization", 0);
    lu.severity = s.gpu_busy_pct < 25 ? "high" : "medium";
    lu.detail = "GPU busy " + base::FormatFixed(s.gpu_busy_pct, 1) + "% of the steady window; idle by cause:";
    for (size_t k = 0; k < s.idle.size() && k < 4; ++k) {
      lu.detail += (k ? ", " : " ") + s.idle[k].cause + " " + base::FormatFixed(c.Percent(s.idle[k].ns) / std::max(1, c.devices()), 1) + "%";
    }
    f.push_back(std::move(lu));
  }
  for (auto& x : f) {
    // Host syncs are always listed: cheap on a CPU-only run, they stall the pipeline on a GPU.
    bool always = x.severity == "info" || x.rule == "low-utilization" || x.rule == "host-sync";
    if (always || x.impact_percent >= o.min_impact_percent) r.findings.push_back(std::move(x));
  }
  // By impact; the utilization summary and pure information after the measured costs.
  auto rank = [](const Finding& x) { return x.severity == "info" ? 2 : x.rule == "low-utilization" ? 1 : 0; };
  std::stable_sort(r.findings.begin(), r.findings.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.impact_ns > b.impact_ns;
  });
  return r;
}

}  // namespace gpuscope::analysis
