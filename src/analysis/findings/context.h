#pragma once
// What the analyze rules share (internal to src/analysis): the steady window, each device's busy
// timeline and idle gaps with their causes, attribution, and the finding constructor. Built once
// per trace by Analyze (analyze.cc); each rule in rules/ reads it.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "analysis/findings/finding.h"
#include "analysis/findings/prepared_work.h"
#include "analysis/findings/registry.h"
#include "analysis/replay/what_if.h"
#include "analysis/steps/steady_state.h"
#include "base/string_pool.h"
#include "base/text.h"
#include "model/trace.h"

namespace gpuscope::analysis::internal {

using model::kNoRow;
using model::RowId;
using model::Trace;

// An idle gap of one GPU. A trace can hold millions (a launch-bound run leaves one between every
// two kernels): 40 bytes each, the cause and the place as ids of strings interned once in the
// Context (Context::Text), not views or copies per gap.
struct Gap {
  int64_t start = 0, end = 0;
  // API row that launched the op ending the gap (kNoRow: none / window end).
  RowId next_launch = kNoRow;
  int32_t device = 0;
  base::StringId cause = 0;  // Text(cause): "CPU op: aten::copy_", "launch late", ...
  struct {
    base::StringId python = 0, op = 0;  // as Where's: innermost user frame, deepest op
  } where;
  RowId op = kNoRow;  // the op row behind where.op (kNoRow: none)
};
static_assert(sizeof(Gap) <= 40, "a trace can hold millions of gaps");

// The cause of a gap before an op that was already queued (its launch had returned): the GPU's
// own dispatch gap, not the host's doing.
inline constexpr std::string_view kDispatchGapCause = "dispatch gap (work queued)";

// Everything the rules share: the window, the GPU busy timeline, the per-iteration divisor.
class Context {
 public:
  // A window (cut from steps found before: ChooseWindow); the graph attribution is the whole
  // trace's.
  Context(const Trace& t, const AnalyzeOptions& o, SteadyState steady)
      : Context(t, o, [&steady] { return std::move(steady); }) {}
  // The same, asking `window` for the window only once the attribution, which does not need it,
  // is made: analyze seeks the window on a second core meanwhile.
  Context(const Trace& t, const AnalyzeOptions& o, const std::function<SteadyState()>& window)
      : t_(t), o_(o), at_(t) {
    graphs_ = AttributeGraphKernels(t, at_, o.captures);
    // What needs no window, too, before it is asked for.
    BuildKernelBusy();
    ecosystem_ = DetectEcosystem(t_);
    steady_ = window();
    Init();
  }

  const Trace& t() const { return t_; }
  const Attributor& at() const { return at_; }
  const GraphAttribution& graphs() const { return graphs_; }
  Context(const Context&) = delete;  // at_ points into graphs_
  Context& operator=(const Context&) = delete;
  const AnalyzeOptions& o() const { return o_; }
  const SteadyState& steady() const { return steady_; }
  const Ecosystem& ecosystem() const { return ecosystem_; }
  // Inside the window's steady part: in the window and in none of its one-time costs.
  bool In(int64_t ts) const {
    return ts >= w0_ && ts < w1_ && (masked_.empty() || !steady_.one_time.Covers(ts));
  }
  // Copies (not memsets) that belong to the window, in row order.
  std::vector<size_t> WindowCopies() const;
  // A GPU op belongs to the window when its launch call does (the GPU may run it after the
  // window's end); an op without a known launch, by its own start.
  bool GpuIn(int64_t start, RowId launch) const { return In(LaunchedAt(t_, launch, start)); }
  // The window's steady part: its span less its one-time costs.
  int64_t window() const { return std::max<int64_t>(1, w1_ - w0_ - masked_ns_); }
  // The one-time costs' fix: their calls take no time, their host time leaves its thread, a
  // kernel whose launch loaded its module starts a typical launch latency after it (the
  // replay's baseline for every other finding; with `program_only`, without the recording's
  // parts (OneTimePart::before_trace): the warm-up finding's own fix; with `recording_only`,
  // those parts alone: the window as the program ran it, no fix's saving).
  WhatIf OneTimeFix(bool program_only = false, bool recording_only = false) const {
    return OneTimeFixOf(steady_, program_only, recording_only);
  }
  // The same, of a window before its context is made (analyze starts the replay graph with it).
  static WhatIf OneTimeFixOf(const SteadyState& steady, bool program_only = false,
                             bool recording_only = false);
  double PerIteration(double count) const {
    return iterations_ ? count / static_cast<double>(iterations_) : count;
  }
  std::string PerIterationText(double count) const {
    return iterations_
               ? base::FormatFixed(PerIteration(count), 1) + " per iteration"
               : base::FormatCount(static_cast<uint64_t>(count)) + " in the window (no iterations)";
  }
  int64_t Iteration(int64_t ts) const {
    int step = steady_.StepAt(ts);
    return step < 0 ? -1 : steady_.iterations[static_cast<size_t>(step)].number;
  }
  double Percent(int64_t ns) const {
    return 100.0 * static_cast<double>(ns) / static_cast<double>(window());
  }

  std::vector<Gap>& gaps() { return gaps_; }
  // `s` stored once for the Context's lifetime (gap causes and places), and its text.
  base::StringId Intern(std::string_view s) { return names_.Intern(s); }
  std::string_view Text(base::StringId id) const { return names_.Get(id); }
  const std::vector<Gap>& gaps() const { return gaps_; }
  int64_t busy_ns() const { return busy_; }
  // A GPU time's share of the GPU's busy time in the window (all devices), in percent.
  double BusyPercent(int64_t ns) const {
    return 100.0 * static_cast<double>(ns) / static_cast<double>(std::max<int64_t>(1, busy_));
  }
  int devices() const { return devices_; }
  // What `make` returns for this context, made once by the first thread to ask (PreparedWork:
  // a rule's claim-free work, which analyze's second core may do before the rule's turn).
  template <typename T>
  const T& Prepared(T (*make)(const Context&)) const {
    return prepared_.Get<T>([&] { return make(*this); });
  }
  // Idle time before a GPU op that starts a busy interval on its device (0 when it does not).
  int64_t IdleBefore(int device, int64_t start) const {
    // Gaps of one device do not overlap: at most one of them ends at `start`.
    auto it = std::lower_bound(by_end_.begin(), by_end_.end(), start,
                               [&](uint32_t g, int64_t v) { return gaps_[g].end < v; });
    for (; it != by_end_.end() && gaps_[*it].end == start; ++it) {
      if (gaps_[*it].device == device) return start - gaps_[*it].start;
    }
    return 0;
  }
  // GPU idle time (all devices) inside [a, b].
  int64_t IdleWithin(int64_t a, int64_t b) const {
    int64_t sum = 0;
    for (auto it = FirstEndingAfter(a); it != by_end_.end(); ++it) {
      int64_t gs = gaps_[*it].start, ge = gaps_[*it].end;
      if (ge - max_gap_ >= b) break;  // every later gap starts after b
      if (gs < b) sum += std::max<int64_t>(0, std::min(ge, b) - std::max(gs, a));
    }
    return sum;
  }
  // Time of [a, b) on `device` during which no kernel runs there.
  int64_t Exposed(int device, int64_t a, int64_t b) const {
    auto it = kernel_busy_.find(device);
    if (it == kernel_busy_.end()) return b - a;
    return std::max<int64_t>(0, (b - a) - CoveredWithin(it->second, a, b));
  }

 private:
  void Init() {
    at_.SetGraphs(&graphs_);
    w0_ = steady_.start_ns, w1_ = steady_.end_ns;
    masked_ = steady_.one_time.spans;
    masked_ns_ = steady_.one_time.Within(w0_, w1_);
    iterations_ = steady_.iterations.empty() ? 0 : steady_.steady_count();
    BuildTimeline();
  }
  // The first of by_end_ whose gap ends after `ts`.
  std::vector<uint32_t>::const_iterator FirstEndingAfter(int64_t ts) const {
    return std::upper_bound(by_end_.begin(), by_end_.end(), ts,
                            [&](int64_t v, uint32_t g) { return v < gaps_[g].end; });
  }

  // The busy intervals and idle gaps of each device in the window (context.cc).
  void BuildTimeline();
  // Each device's kernels' busy intervals, merged, in the whole trace (context.cc).
  void BuildKernelBusy();

  const Trace& t_;
  const AnalyzeOptions& o_;
  SteadyState steady_;
  Attributor at_;
  GraphAttribution graphs_;
  int64_t w0_ = 0, w1_ = 0;
  std::vector<Interval> masked_;  // the one-time costs' time (steady_.one_time.spans)
  int64_t masked_ns_ = 0;         // ... inside the window
  size_t iterations_ = 0;
  Ecosystem ecosystem_;
  std::vector<Gap> gaps_;
  base::StringPool names_;        // the gaps' causes and places
  std::vector<uint32_t> by_end_;  // gaps_ indexes, by end (4 bytes per gap)
  int64_t max_gap_ = 0;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> kernel_busy_;
  int64_t busy_ = 0;
  int devices_ = 0;
  mutable PreparedWork prepared_;
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
    size_t kept = 0;  // in place: a query allocates nothing
    for (size_t r : active_) {
      if (t_.end_ns(r) > a) active_[kept++] = r;
    }
    active_.resize(kept);
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

// A finding and the fix that the replay prices it by (impact_ns is set by the pricing).
struct Candidate {
  Finding finding;
  WhatIf fix;
};

// Events already charged to a finding: rules run in order of specificity and a later one leaves
// them out, so that two findings never claim the same events (one finding per root cause).
class Claims {
 public:
  explicit Claims(const Trace& t)
      : api_(t.api.size(), 0), memop_(t.memops.size(), 0), kernel_(t.kernels.size(), 0) {}
  // True when the row was free (and is now taken).
  bool TakeApi(size_t r) { return Take(api_, r); }
  bool TakeMemop(size_t r) { return Take(memop_, r); }
  bool TakeKernel(size_t r) { return Take(kernel_, r); }
  bool ApiTaken(size_t r) const { return r < api_.size() && api_[r]; }
  bool MemopTaken(size_t r) const { return r < memop_.size() && memop_[r]; }
  bool KernelTaken(size_t r) const { return r < kernel_.size() && kernel_[r]; }
  // Host time that a finding explains (a sync call, a loader range, a storming frame): the GPU
  // idle gaps that lie mostly inside it are that finding's, not gpu-idle's.
  void Explain(int64_t start, int64_t end) { spans_.emplace_back(start, end), sorted_ = false; }
  bool Explains(int64_t start, int64_t end);

 private:
  static bool Take(std::vector<uint8_t>& v, size_t r) {
    if (r >= v.size() || v[r]) return false;
    v[r] = 1;
    return true;
  }
  std::vector<uint8_t> api_, memop_, kernel_;
  std::vector<std::pair<int64_t, int64_t>> spans_;  // merged once sorted
  bool sorted_ = true;
};

// Names each gap's cause from what the host did during it (see the gpu-idle rule).
void ClassifyGaps(Context& c);

// A finding of `rule` (its title and advice from the rules table) saving `impact` ns.
Finding Make(const Context& c, std::string_view rule, int64_t impact);

// Adds an instance to the finding's evidence (at most the --evidence count).
void AddEvidence(const Context& c, Finding& f, int64_t start, int64_t dur, std::string what);

}  // namespace gpuscope::analysis::internal
