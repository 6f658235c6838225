#include "model/plausibility.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/text.h"

namespace gpuscope::model {
namespace {

std::string Shown(const Trace& t, StringId name) {
  std::string s(t.str(name));
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return "'" + s + "'";
}

std::string Us(int64_t ns) { return base::FormatDuration(ns); }

// Whether rows a and b of `table` hold the same value in every column.
template <typename Table>
bool SameRow(Table& table, size_t a, size_t b) {
  bool same = true;
  table.ForEachColumn([&](auto& column) { same = same && column[a] == column[b]; });
  return same;
}

// Drops exact repeats in one time-sorted table: rows that repeat another share its start and
// duration, so only rows of one (start, duration) run are compared (each with at most kWindow
// earlier ones: a crafted run of a million distinct rows with one start stays linear).
template <typename Table>
uint64_t DropRepeats(Trace& t, Table& table, std::string_view what) {
  constexpr size_t kWindow = 16;
  const size_t n = table.size();
  std::vector<uint8_t> keep(n, 1);
  uint64_t dropped = 0;
  size_t run_begin = 0;
  for (size_t i = 1; i < n; ++i) {
    if (table.start_ns[i] != table.start_ns[run_begin] ||
        table.dur_ns[i] != table.dur_ns[run_begin]) {
      run_begin = i;
      continue;
    }
    for (size_t j = i; j-- > std::max(run_begin, i > kWindow ? i - kWindow : 0);) {
      if (!keep[j] || !SameRow(table, i, j)) continue;
      keep[i] = 0;
      if (dropped++ == 0) {
        t.problems.Add(kDuplicateEvents,
                       std::string(what) + " " + Shown(t, table.name[i]) + " at " +
                           std::to_string(table.start_ns[i]) +
                           " ns is recorded twice, every field equal; the "
                           "copy was dropped",
                       0);
      }
      break;
    }
  }
  if (dropped == 0) return 0;
  t.problems.Add(kDuplicateEvents, "", dropped);
  table.ForEachColumn([&keep](auto& column) {
    size_t w = 0;
    for (size_t i = 0; i < column.size(); ++i) {
      if (keep[i]) column[w++] = column[i];
    }
    column.resize(w);
  });
  return dropped;
}

bool IsLaunch(const Trace& t, StringId name) {
  return t.str(name).find("Launch") != std::string_view::npos;
}

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// A kernel never runs inside another on the same stream: a stream runs its work in order.
void CheckStreamOverlap(Trace& t, const PlausibilityOptions& o) {
  const KernelTable& k = t.kernels;
  std::vector<size_t> rows(k.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  // Tables are time-sorted; a stable sort by track keeps time order within each stream.
  std::stable_sort(rows.begin(), rows.end(),
                   [&k](size_t a, size_t b) { return k.track[a] < k.track[b]; });
  uint64_t overlaps = 0;
  std::string first;
  for (size_t x = 1, open = rows.empty() ? 0 : rows[0]; x < rows.size(); ++x) {
    size_t r = rows[x];
    if (k.track[r] != k.track[open]) {
      open = r;
      continue;
    }
    // Only a kernel held inside another counts: with programmatic dependent launch (Hopper
    // and later) the next kernel may start before the previous one ends, but it waits for it
    // and ends after it.
    int64_t over = k.end_ns(open) - k.start_ns[r];
    if (over > o.overlap_tolerance_ns && k.end_ns(r) <= k.end_ns(open)) {
      if (overlaps++ == 0) {
        first = "kernel " + Shown(t, k.name[r]) + " runs inside " + Shown(t, k.name[open]) +
                " on the same stream";
      }
    }
    if (k.end_ns(r) > k.end_ns(open)) open = r;
  }
  if (overlaps == 0) return;
  t.problems.Add(kStreamOverlap,
                 first +
                     " (a stream runs one kernel after another: events recorded twice, "
                     "shifted, or streams merged into one)",
                 overlaps);
}

// Starts that go back along an order in which each must follow the one before (by more than the
// tolerance, which absorbs clock jitter): how many, and the largest step back.
struct StepsBack {
  int64_t tolerance_ns = 0;
  uint64_t count = 0;
  int64_t largest = 0;
  void Check(int64_t before, int64_t after) {
    if (before - after <= tolerance_ns) return;
    ++count;
    largest = std::max(largest, before - after);
  }
};

// A thread's launch calls run one after another in the order of their correlation ids (CUPTI
// and roctracer number them as they are made): a later id that starts earlier is a clock going
// back. Only launch calls: other calls are numbered by other schemes in some tracers (legacy
// rocprof's flow ids, MTIA's executor ranges in a space of their own).
void CheckHostClock(Trace& t, const PlausibilityOptions& o) {
  const ApiTable& a = t.api;
  // (thread, API domain, correlation, start): each runtime numbers its own calls.
  std::vector<std::tuple<TrackId, ApiDomain, uint64_t, int64_t>> calls;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.correlation[i] != kNoCorrelation && IsLaunch(t, a.name[i]))
      calls.emplace_back(a.track[i], a.domain[i], a.correlation[i], a.start_ns[i]);
  }
  std::sort(calls.begin(), calls.end());
  // Ids that repeat are not a sequence (some runtimes reuse them): nothing to check.
  for (size_t i = 1; i < calls.size(); ++i) {
    if (std::get<2>(calls[i]) == std::get<2>(calls[i - 1]) &&
        std::get<1>(calls[i]) == std::get<1>(calls[i - 1]))
      return;
  }
  StepsBack back{o.backwards_tolerance_ns};
  for (size_t i = 1; i < calls.size(); ++i) {
    auto [tr0, d0, c0, s0] = calls[i - 1];
    auto [tr, d, c, s] = calls[i];
    if (tr == tr0 && d == d0) back.Check(s0, s);
  }
  if (back.count == 0) return;
  t.problems.Add(kClockBackwards,
                 "on one thread, a launch call numbered after another starts " + Us(back.largest) +
                     " before it (calls on a thread run one after another): the host clock "
                     "went back, or the events were edited",
                 back.count);
}

// Kernels launched from one thread onto one stream run in the order of their launches. Kernels
// that run in another order are linked to the wrong launches (correlation ids that do not
// match) or timed by a clock that went back.
void CheckLaunchOrder(Trace& t, const PlausibilityOptions& o) {
  const KernelTable& k = t.kernels;
  // (stream, launching thread, correlation, start)
  std::vector<std::tuple<TrackId, TrackId, uint64_t, int64_t>> rows;
  for (size_t i = 0; i < k.size(); ++i) {
    RowId l = k.launch[i];
    if (l == kNoRow) continue;
    rows.emplace_back(k.track[i], t.api.track[l], k.correlation[i], k.start_ns[i]);
  }
  std::sort(rows.begin(), rows.end());
  StepsBack back{o.backwards_tolerance_ns};
  // Kernels of one launch (a graph) share a correlation id: each launch is compared by its
  // first kernel with the previous launch's first kernel.
  int64_t cur_first = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto [stream, thread, corr, start] = rows[i];
    bool same_pair =
        i > 0 && std::get<0>(rows[i - 1]) == stream && std::get<1>(rows[i - 1]) == thread;
    if (i > 0 && same_pair && std::get<2>(rows[i - 1]) == corr)
      continue;  // later kernel, one launch
    if (same_pair) back.Check(cur_first, start);
    cur_first = start;
  }
  if (back.count == 0) return;
  t.problems.Add(kLaunchOrder,
                 "on one stream, a kernel launched after another from the same thread starts " +
                     Us(back.largest) +
                     " before it (a stream runs kernels in launch order): correlation ids "
                     "that do not match kernels to launches, or a GPU clock that went back",
                 back.count);
}

// Durations that cannot be times in the unit the format promises.
void CheckUnits(Trace& t, const PlausibilityOptions& o) {
  const KernelTable& k = t.kernels;
  if (k.size() >= o.min_kernels_for_units) {
    std::vector<int64_t> durs(k.dur_ns.begin(), k.dur_ns.end());
    uint64_t zero = static_cast<uint64_t>(std::count(durs.begin(), durs.end(), 0));
    int64_t median = Median(durs);
    auto [first, last] = std::minmax_element(k.start_ns.begin(), k.start_ns.end());
    int64_t span = *last - *first;
    bool sub_ns = t.problems.Count(ProblemKind::kKinetoTsSubNsRounded) > 0;
    std::string counts = base::FormatCount(k.size()) + " kernels";
    if (zero * 10 >= k.size() * 9 && (sub_ns || span < static_cast<int64_t>(k.size()))) {
      t.problems.Add(kTimeUnit,
                     counts + " in " + Us(span) + " and " + base::FormatCount(zero) +
                         " of them last 0 ns: the times look like seconds, not the format's "
                         "unit (--time-unit s reads them as seconds)",
                     k.size());
      return;
    }
    if (zero * 10 >= k.size() * 9) {
      t.problems.Add(kZeroDurations,
                     base::FormatCount(zero) + " of " + counts +
                         " last 0 ns: durations were not recorded; GPU busy time, kernel "
                         "totals and everything priced from them are 0",
                     zero);
      return;
    }
    if (median < o.min_typical_kernel_ns) {
      t.problems.Add(kTimeUnit,
                     "the median kernel lasts " + std::to_string(median) +
                         " ns (no GPU runs a typical kernel that fast): the times look like "
                         "milliseconds, not the format's unit (--time-unit ms reads them so)",
                     k.size());
      return;
    }
  }
  std::vector<int64_t> launches;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (IsLaunch(t, t.api.name[i])) launches.push_back(t.api.dur_ns[i]);
  }
  // Launch calls alone can take milliseconds (CUPTI's profiler replays each kernel inside its
  // launch); kernels of milliseconds beside them make the unit the likelier cause.
  if (launches.size() >= o.min_kernels_for_units && k.size() >= o.min_kernels_for_units) {
    int64_t median = Median(launches);
    if (median > o.max_typical_launch_ns &&
        Median({k.dur_ns.begin(), k.dur_ns.end()}) > o.max_typical_launch_ns) {
      t.problems.Add(kTimeUnit,
                     "the median launch call lasts " + Us(median) +
                         " (a launch takes microseconds): the times look like nanoseconds "
                         "read as microseconds (--time-unit ns reads them so)",
                     launches.size());
    }
  }
}

}  // namespace

uint64_t DropDuplicateEvents(Trace& t) {
  return DropRepeats(t, t.kernels, "kernel") + DropRepeats(t, t.memops, "memory operation") +
         DropRepeats(t, t.api, "API call") + DropRepeats(t, t.cpu, "CPU range") +
         DropRepeats(t, t.python, "Python frame") + DropRepeats(t, t.gpu_ranges, "GPU range");
}

void CheckPlausibility(Trace& t, const PlausibilityOptions& options) {
  CheckStreamOverlap(t, options);
  CheckHostClock(t, options);
  CheckLaunchOrder(t, options);
  CheckUnits(t, options);
}

}  // namespace gpuscope::model
