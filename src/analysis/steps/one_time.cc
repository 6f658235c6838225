#include "analysis/steps/one_time.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "analysis/common/median.h"
#include "analysis/common/name_memo.h"
#include "analysis/steps/before_trace.h"
#include "analysis/steps/one_time_names.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

using internal::IsCompileRange;
using internal::IsCompilerFrame;
using internal::IsSetUpCall;
using model::kNoRow;
using model::RowId;
using model::Trace;

constexpr int64_t kMs = 1'000'000;
// A first call this many times the median of the op's other calls is set-up, not work.
constexpr int64_t kFirstCallFactor = 10;
// A set-up call shorter than this is noise unless it repeats long (1 ms or more).
constexpr int64_t kSetUpNs = 100'000;
// A first launch this many times the median launch call loads its module.
constexpr int64_t kModuleLoadFactor = 20;

// The median of `v` without one instance of `own` (0 when nothing else is left).
int64_t MedianOfOthers(std::vector<int64_t> v, int64_t own) {
  auto it = std::find(v.begin(), v.end(), own);
  if (it != v.end()) v.erase(it);
  return UpperMedian(std::move(v));
}

class Finder {
 public:
  Finder(const Trace& t, int64_t start, int64_t end, bool one_pass)
      : t_(t), w0_(start), w1_(end), one_pass_(one_pass), kernel_of_(t.api.size(), SIZE_MAX) {
    // Kernels are in time order: a call's first kernel is the first met (a graph launch's).
    for (size_t k = t.kernels.size(); k-- > 0;)
      if (t.kernels.launch[k] != kNoRow) kernel_of_[t.kernels.launch[k]] = k;
  }
  bool In(int64_t ts) const { return ts >= w0_ && ts < w1_; }

  // Set-up calls, first growths of the allocator, module-loading first launches.
  void Calls() {
    // The name tests once per distinct name (name_memo.h).
    NameMemo launch(t_, IsLaunchApi), set_up_call(t_, IsSetUpCall), allocator(t_, IsAllocatorApi);
    std::vector<int64_t> launches;
    for (size_t i = 0; i < t_.api.size(); ++i)
      if (In(t_.api.start_ns[i]) && launch(t_.api.name[i])) launches.push_back(t_.api.dur_ns[i]);
    const int64_t median_launch = std::max<int64_t>(1, UpperMedian(std::move(launches)));
    // Per kernel name, its launch calls' durations: a first launch as long as the later ones is
    // no module load (a full launch queue holds every launch: nsys's "command buffer full").
    std::unordered_map<model::StringId, std::vector<int64_t>> launch_durs;
    for (size_t call = 0; call < kernel_of_.size(); ++call)
      if (kernel_of_[call] != SIZE_MAX)
        launch_durs[t_.kernels.name[kernel_of_[call]]].push_back(t_.api.dur_ns[call]);
    std::unordered_set<model::StringId> launched;  // kernels whose first launch was seen
    std::unordered_set<model::StringId> set_up;    // set-up calls whose first call was seen
    for (size_t i = 0; i < t_.api.size(); ++i) {
      if (t_.api.domain[i] == model::ApiDomain::kOs) continue;
      const model::StringId n = t_.api.name[i];
      const int64_t d = t_.api.dur_ns[i];
      std::string what;
      size_t first_kernel = SIZE_MAX;
      if (launch(n)) {
        const size_t k = kernel_of_[i];
        // First in the whole trace: a kernel launched before the window is loaded already.
        const bool first = k != SIZE_MAX && launched.insert(t_.kernels.name[k]).second;
        // A graph launch's call submits its nodes: its length is the graph's, not a module's. A
        // call held by a full launch queue returns long before its kernel runs (queued behind
        // 400 ms of work); one that loaded the kernel's module, about when the GPU can run it.
        if (first && d >= kMs && !IsGraphLaunchApi(t_.str(n)) &&
            d >= kModuleLoadFactor * median_launch &&
            d >= kModuleLoadFactor * MedianOfOthers(launch_durs[t_.kernels.name[k]], d) &&
            t_.kernels.start_ns[k] - t_.api.end_ns(i) <= d)
          what = "module loading", first_kernel = k;
      } else if (set_up_call(n) && ((set_up.insert(n).second && d >= kSetUpNs) || d >= kMs)) {
        // The first of its name (100 us or more), or a long one: a set-up call repeated in every
        // step (a cudaFuncGetAttributes per launch) is the steady state's.
        what = "set-up calls";
      } else if (one_pass_ && d >= kMs && allocator(n)) {
        what = "first allocations";
      }
      if (what.empty() || !In(t_.api.start_ns[i])) continue;
      Add(OneTimePart{t_.api.start_ns[i], t_.api.end_ns(i), t_.api.track[i], what, "",
                      static_cast<RowId>(i), first_kernel});
    }
  }

  // Compilation and autotuning: the compilers' Python frames and ranges, outermost only, each
  // the first of its name and, where the name repeats, 10x the median of its other instances
  // (Inductor's compile_fx `run` and an autotuner's cached `run` are every step's).
  void Compilation() {
    // The name tests once per distinct name, not per row (a string search per row was 4% of
    // `analyze` on a 1 GB trace).
    NameMemo frame_named(t_, [&](std::string_view n) { return IsCompilerFrame(n, one_pass_); });
    NameMemo range_named(t_, IsCompileRange);
    auto compiler_frame = [&](RowId r) { return frame_named(t_.python.name[r]); };
    const std::vector<uint8_t> frame_once = OnceOfItsName(t_.python, compiler_frame);
    for (size_t i = 0; i < t_.python.size(); ++i) {
      if (!frame_once[i] || !In(t_.python.start_ns[i]) || t_.python.dur_ns[i] < kMs) continue;
      bool nested = false;
      for (RowId p = t_.python.parent[i]; p != kNoRow && !nested; p = t_.python.parent[p])
        nested = compiler_frame(p);
      if (!nested)
        Add(t_.python.start_ns[i], t_.python.end_ns(i), t_.python.track[i],
            "compilation / autotuning");
    }
    auto compile_range = [&](RowId r) { return range_named(t_.cpu.name[r]); };
    const std::vector<uint8_t> range_once = OnceOfItsName(t_.cpu, compile_range);
    for (size_t i = 0; i < t_.cpu.size(); ++i) {
      // In a one-pass window every compile range is one-time: a JIT (nvFuser's
      // FusionKernelRuntime::compileFusionParallel) names the compile of each new fusion alike.
      const bool once = range_once[i] || (one_pass_ && compile_range(static_cast<RowId>(i)));
      if (!once || !In(t_.cpu.start_ns[i]) || t_.cpu.dur_ns[i] < kMs) continue;
      if (t_.cpu.parent[i] != kNoRow && compile_range(t_.cpu.parent[i]))
        continue;  // inside a compile range already counted
      Add(t_.cpu.start_ns[i], t_.cpu.end_ns(i), t_.cpu.track[i], "compilation / autotuning");
    }
  }

  // Per row: whether it is `kind`, the first of its name, and - where the name repeats - 10x the
  // median of the name's other rows.
  template <typename Rows, typename Kind>
  static std::vector<uint8_t> OnceOfItsName(const Rows& rows, Kind kind) {
    std::unordered_map<model::StringId, size_t> first;
    std::unordered_map<model::StringId, std::vector<int64_t>> others;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!kind(static_cast<RowId>(i))) continue;
      if (!first.emplace(rows.name[i], i).second) others[rows.name[i]].push_back(rows.dur_ns[i]);
    }
    std::vector<uint8_t> out(rows.size(), 0);
    for (const auto& [name, i] : first) {
      auto o = others.find(name);
      out[i] = o == others.end() ||
               rows.dur_ns[i] >= kFirstCallFactor * std::max<int64_t>(1, UpperMedian(o->second));
    }
    return out;
  }

  // The host pause before the first call of each scripted function: the outermost op holding a
  // `fallback_function` (the profiling executor's), from the thread's last event before it to
  // its first event inside it.
  void TorchScript() {
    std::unordered_set<RowId> calls;
    for (size_t i = 0; i < t_.cpu.size(); ++i) {
      if (t_.str(t_.cpu.name[i]) != "fallback_function") continue;
      RowId r = static_cast<RowId>(i);
      while (t_.cpu.parent[r] != kNoRow &&
             t_.cpu.kind[t_.cpu.parent[r]] == model::CpuRangeKind::kOp)
        r = t_.cpu.parent[r];
      calls.insert(r);
    }
    std::map<std::pair<model::StringId, model::TrackId>, RowId> first;  // rows sorted by start
    for (RowId r : calls) {
      auto key = std::pair(t_.cpu.name[r], t_.cpu.track[r]);
      auto it = first.find(key);
      if (it == first.end() || r < it->second) first[key] = r;
    }
    for (const auto& entry : first) {
      // (Not a structured binding: clang 14 lambdas cannot capture one.)
      const model::TrackId track = entry.first.second;
      const RowId r = entry.second;
      const int64_t s = t_.cpu.start_ns[r], e = t_.cpu.end_ns(r);
      int64_t before = w0_, inside = e;
      auto scan = [&](const model::SliceColumns& rows, size_t skip) {
        for (size_t i = 0; i < rows.size(); ++i) {
          if (rows.track[i] != track || i == skip) continue;
          if (rows.end_ns(i) <= s) before = std::max(before, rows.end_ns(i));
          if (rows.start_ns[i] >= s && rows.start_ns[i] < inside) inside = rows.start_ns[i];
        }
      };
      scan(t_.cpu, r);
      scan(t_.api, SIZE_MAX);
      scan(t_.python, SIZE_MAX);
      if (inside - before >= kMs && In(s)) Add(before, inside, track, "TorchScript first run");
    }
  }

  // An op's first call with its arguments that is far slower than its other calls, innermost.
  void FirstCalls() {
    const auto& c = t_.cpu;
    std::unordered_set<uint64_t> seen;  // (name, args) of calls seen
    std::vector<uint8_t> is_first(c.size(), 0);
    std::unordered_map<model::StringId, std::vector<int64_t>> others;  // op -> other calls
    for (size_t i = 0; i < c.size(); ++i) {
      if (c.kind[i] != model::CpuRangeKind::kOp) continue;
      uint64_t key = (uint64_t{c.name[i]} << 32) | c.args[i];
      if (seen.insert(key).second)
        is_first[i] = 1;
      else
        others[c.name[i]].push_back(c.dur_ns[i]);
    }
    std::unordered_map<model::StringId, int64_t> median;
    for (auto& [name, d] : others) median[name] = std::max<int64_t>(1, UpperMedian(std::move(d)));
    std::vector<uint8_t> inner_taken(c.size(), 0);  // a descendant was taken
    std::vector<OneTimePart> found;
    for (size_t i = c.size(); i-- > 0;) {  // children after their parents: innermost first
      if (!is_first[i] || inner_taken[i] || !In(c.start_ns[i]) || c.dur_ns[i] < kMs) continue;
      auto m = median.find(c.name[i]);
      if (m == median.end() || c.dur_ns[i] < kFirstCallFactor * m->second) continue;
      if (WaitsForGpu(c.track[i], c.start_ns[i], c.end_ns(i))) continue;
      for (RowId p = c.parent[i]; p != kNoRow && !inner_taken[p]; p = c.parent[p])
        inner_taken[p] = 1;
      found.push_back({c.start_ns[i], c.end_ns(i), c.track[i], "ops' first calls",
                       std::string(t_.str(c.name[i])), kNoRow, SIZE_MAX});
    }
    for (auto& p : found) Add(std::move(p));
  }

  // Without GPU ops recorded: the host's time before its first launch or copy call.
  void StartUp() {
    if (t_.kernels.size() || t_.memops.size()) return;
    for (size_t i = 0; i < t_.api.size(); ++i) {
      std::string_view n = t_.str(t_.api.name[i]);
      if (!In(t_.api.start_ns[i]) || !(IsLaunchApi(n) || IsCopyApi(n))) continue;
      if (t_.api.start_ns[i] - w0_ >= kMs)
        Add(w0_, t_.api.start_ns[i], t_.api.track[i], "start-up before the first GPU call");
      return;
    }
  }

  // The recording's start (before_trace.h).
  void BeforeTrace() {
    for (auto& p : FindWaitsBeforeTrace(t_, w0_, w1_)) Add(std::move(p));
  }

  OneTime Done() {
    OneTime o;
    std::sort(parts_.begin(), parts_.end(),
              [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    for (const auto& p : parts_) o.spans.emplace_back(p.start_ns, std::min(p.end_ns, w1_));
    MergeIntervals(o.spans);
    for (auto [s, e] : o.spans) o.ns += e - s;
    o.parts = std::move(parts_);
    return o;
  }

 private:
  void Add(OneTimePart p) {
    if (p.end_ns > p.start_ns) parts_.push_back(std::move(p));
  }
  void Add(int64_t s, int64_t e, model::TrackId track, std::string what) {
    Add(OneTimePart{s, e, track, std::move(what), {}, kNoRow, SIZE_MAX});
  }
  // Whether half of [s, e) on the thread is in syncs, blocking copies or launch calls held by a
  // full launch queue (their kernel ran long after they returned): waiting for the GPU.
  bool WaitsForGpu(model::TrackId track, int64_t s, int64_t e) const {
    auto first = std::lower_bound(t_.api.start_ns.begin(), t_.api.start_ns.end(), s);
    int64_t waits = 0;
    for (size_t i = static_cast<size_t>(first - t_.api.start_ns.begin());
         i < t_.api.size() && t_.api.start_ns[i] < e; ++i) {
      std::string_view n = t_.str(t_.api.name[i]);
      const size_t k = kernel_of_[i];
      const bool held = IsLaunchApi(n) && k != SIZE_MAX &&
                        t_.kernels.start_ns[k] - t_.api.end_ns(i) > t_.api.dur_ns[i];
      if (t_.api.track[i] == track && (IsSyncApi(n) || IsBlockingCopyApi(n) || held))
        waits += std::min(e, t_.api.end_ns(i)) - t_.api.start_ns[i];
    }
    return 2 * waits >= e - s;
  }

  const Trace& t_;
  int64_t w0_, w1_;
  bool one_pass_;
  std::vector<OneTimePart> parts_;
  std::vector<size_t> kernel_of_;  // per runtime call, the first kernel it launched (SIZE_MAX)
};

}  // namespace

bool OneTime::Covers(int64_t ts) const {
  auto it = std::upper_bound(spans.begin(), spans.end(), ts,
                             [](int64_t v, const auto& s) { return v < s.first; });
  return it != spans.begin() && ts < std::prev(it)->second;
}

int64_t OneTime::Within(int64_t a, int64_t b) const { return CoveredWithin(spans, a, b); }

std::vector<OneTime::Kind> OneTime::Kinds() const {
  // Each instant counts once, for the most specific kind holding it (a set-up call inside an
  // op's first call is the call's): the kinds' times add up to the total.
  static constexpr std::string_view kOrder[] = {"module loading",
                                                "set-up calls",
                                                "first allocations",
                                                "compilation / autotuning",
                                                "TorchScript first run",
                                                "ops' first calls",
                                                "start-up before the first GPU call",
                                                kBeforeTraceWhat,
                                                kBesideBeforeTraceWhat};
  auto rank = [](std::string_view what) {
    return static_cast<size_t>(std::find(std::begin(kOrder), std::end(kOrder), what) -
                               std::begin(kOrder));
  };
  std::map<std::pair<size_t, std::string>, std::vector<Interval>> by;
  for (const auto& p : parts) by[{rank(p.what), p.what}].emplace_back(p.start_ns, p.end_ns);
  std::vector<Kind> out;
  std::vector<Interval> taken;
  for (auto& [key, v] : by) {
    Kind k{key.second, 0, v.size()};
    MergeIntervals(v);
    for (auto [s, e] : v) k.ns += (e - s) - CoveredWithin(taken, s, e);
    taken.insert(taken.end(), v.begin(), v.end());
    MergeIntervals(taken);
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Kind& a, const Kind& b) { return a.ns > b.ns; });
  return out;
}

std::string OneTime::Text() const {
  std::vector<Kind> kinds = Kinds();
  std::string out;
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (k) out += k + 1 == kinds.size() ? " and " : ", ";
    out += base::FormatDuration(kinds[k].ns) + " of " + kinds[k].what;
  }
  return out;
}

OneTime OneTime::ProgramOnly() const {
  OneTime o;
  if (spans.empty()) return o;
  const int64_t end = spans.back().second;  // the window's end where a part ran past it
  for (const auto& p : parts)
    if (!p.before_trace)
      o.parts.push_back(p), o.spans.emplace_back(p.start_ns, std::min(p.end_ns, end));
  MergeIntervals(o.spans);
  for (auto [s, e] : o.spans) o.ns += e - s;
  return o;
}

OneTime FindOneTime(const Trace& t, int64_t start, int64_t end, bool one_pass) {
  Finder f(t, start, end, one_pass);
  f.Calls();
  f.Compilation();
  f.TorchScript();
  if (one_pass) f.FirstCalls();
  f.StartUp();
  f.BeforeTrace();
  return f.Done();
}

}  // namespace gpuscope::analysis
