#include "model/linker.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/numbers.h"
#include "base/parallel.h"
#include "base/stage_timer.h"
#include "base/text.h"
#include "model/clock_alignment.h"
#include "model/plausibility.h"

namespace gpuscope::model {
namespace {

// Reorders every column of `table` by (start asc, duration desc), stable.
template <typename Table>
void SortTable(Table& table) {
  const size_t n = table.size();
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) {
    sorted = table.start_ns[i - 1] < table.start_ns[i] ||
             (table.start_ns[i - 1] == table.start_ns[i] && table.dur_ns[i - 1] >= table.dur_ns[i]);
  }
  if (sorted) return;
  std::vector<RowId> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](RowId a, RowId b) {
    if (table.start_ns[a] != table.start_ns[b]) return table.start_ns[a] < table.start_ns[b];
    return table.dur_ns[a] > table.dur_ns[b];
  });
  table.ForEachColumn([&](auto& col) {
    std::decay_t<decltype(col)> out;
    out.reserve(col.size());
    for (RowId p : perm) out.push_back(col[p]);
    col.swap(out);
  });
}

// Rows of a time-sorted table grouped by track, each group in time order (counting sort).
struct ByTrack {
  std::vector<uint32_t> offset;  // track t's rows are rows[offset[t] .. offset[t+1])
  std::vector<RowId> rows;
};

ByTrack GroupByTrack(const SliceColumns& t, size_t track_count) {
  ByTrack g;
  g.offset.assign(track_count + 1, 0);
  for (TrackId tr : t.track) ++g.offset[tr + 1];
  for (size_t i = 1; i < g.offset.size(); ++i) g.offset[i] += g.offset[i - 1];
  g.rows.resize(t.size());
  std::vector<uint32_t> fill(g.offset.begin(), g.offset.end() - 1);
  for (size_t i = 0; i < t.size(); ++i) g.rows[fill[t.track[i]]++] = static_cast<RowId>(i);
  return g;
}

// Nests the ranges of one table per track: parent = closest enclosing range.
// Returns how many ranges overlapped an open range without being inside it.
template <typename DepthFn>
uint64_t Nest(const SliceColumns& t, size_t track_count, std::vector<RowId>& parent,
              DepthFn&& set_depth) {
  ByTrack g = GroupByTrack(t, track_count);
  uint64_t overlaps = 0;
  std::vector<RowId> stack;
  for (size_t tr = 0; tr < track_count; ++tr) {
    stack.clear();
    for (uint32_t k = g.offset[tr]; k < g.offset[tr + 1]; ++k) {
      RowId r = g.rows[k];
      const int64_t start = t.start_ns[r];
      const int64_t end = t.end_ns(r);
      auto contains = [&](RowId outer) { return t.end_ns(outer) >= end; };  // starts <= start
      while (!stack.empty() && !contains(stack.back()) && t.end_ns(stack.back()) <= start) {
        stack.pop_back();
      }
      if (!stack.empty() && !contains(stack.back())) {
        ++overlaps;  // overlaps the open range without nesting: treat as its sibling
        while (!stack.empty() && !contains(stack.back())) stack.pop_back();
      }
      parent[r] = stack.empty() ? kNoRow : stack.back();
      set_depth(r, stack.size());
      stack.push_back(r);
    }
  }
  return overlaps;
}

// For each item, the deepest container on the same track whose interval holds the item's.
void Enclose(const SliceColumns& containers, const SliceColumns& items, size_t track_count,
             std::vector<RowId>& out) {
  ByTrack gc = GroupByTrack(containers, track_count);
  ByTrack gi = GroupByTrack(items, track_count);
  std::vector<RowId> stack;
  for (size_t tr = 0; tr < track_count; ++tr) {
    stack.clear();
    uint32_t c = gc.offset[tr];
    const uint32_t c_end = gc.offset[tr + 1];
    for (uint32_t k = gi.offset[tr]; k < gi.offset[tr + 1]; ++k) {
      RowId it = gi.rows[k];
      const int64_t start = items.start_ns[it];
      const int64_t end = items.end_ns(it);
      for (; c < c_end && containers.start_ns[gc.rows[c]] <= start; ++c) {
        RowId r = gc.rows[c];
        while (!stack.empty() && containers.end_ns(stack.back()) < containers.start_ns[r]) {
          stack.pop_back();
        }
        stack.push_back(r);
      }
      while (!stack.empty() && containers.end_ns(stack.back()) < start) stack.pop_back();
      out[it] = kNoRow;
      for (size_t s = stack.size(); s-- > 0;) {
        if (containers.end_ns(stack[s]) >= end) {
          out[it] = stack[s];
          break;
        }
      }
    }
  }
}

void LinkLaunches(Trace& trace) {
  std::unordered_map<uint64_t, RowId> by_corr;
  by_corr.reserve(trace.api.size());
  uint64_t duplicates = 0;
  for (size_t i = 0; i < trace.api.size(); ++i) {
    uint64_t c = trace.api.correlation[i];
    if (c == kNoCorrelation) continue;
    if (!by_corr.emplace(c, static_cast<RowId>(i)).second) ++duplicates;
  }
  if (duplicates > 0) {
    trace.problems.Add(ProblemKind::kLinkDuplicateCorrelation,
                       "several API calls share one correlation id; GPU work is linked to the "
                       "first of them",
                       duplicates);
  }
  auto link = [&](auto& table) {
    for (size_t i = 0; i < table.size(); ++i) {
      auto it = by_corr.find(table.correlation[i]);
      table.launch[i] = it == by_corr.end() ? kNoRow : it->second;
    }
  };
  link(trace.kernels);
  link(trace.memops);
}

// A frame's Python id -> its row (the first row holding it). A trace's ids fill a range, so a
// table indexed by id less the least is the common case (4 bytes per id); ids spread wider are
// looked up in sorted (id, row) pairs. A hash map here cost ~40 bytes per frame (2 M frames: 86
// MB).
class PythonIdIndex {
 public:
  explicit PythonIdIndex(const std::vector<int64_t>& ids) {
    int64_t min_id = INT64_MAX, max_id = -1;
    size_t valid = 0;
    for (int64_t id : ids) {
      if (id < 0) continue;
      min_id = std::min(min_id, id);
      max_id = std::max(max_id, id);
      ++valid;
    }
    // Dense over [min_id, max_id]: ids count up from where the profiler's counter stood (29.9
    // million in one trace), so a table from 0 would rarely be dense.
    if (max_id >= 0 && static_cast<uint64_t>(max_id - min_id) < 2 * valid + 1024) {
      base_ = min_id;
      dense_.assign(static_cast<size_t>(max_id - min_id) + 1, kNoRow);
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;
        RowId& slot = dense_[static_cast<size_t>(ids[i] - base_)];
        if (slot == kNoRow) slot = static_cast<RowId>(i);
      }
      return;
    }
    sorted_.reserve(valid);
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] >= 0) sorted_.emplace_back(ids[i], static_cast<RowId>(i));
    std::sort(sorted_.begin(), sorted_.end());
  }
  RowId Find(int64_t id) const {
    if (id < 0) return kNoRow;
    if (!dense_.empty()) {
      return id >= base_ && static_cast<uint64_t>(id - base_) < dense_.size()
                 ? dense_[static_cast<size_t>(id - base_)]
                 : kNoRow;
    }
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(id, RowId{0}));
    return it != sorted_.end() && it->first == id ? it->second : kNoRow;
  }

 private:
  int64_t base_ = 0;  // the id of dense_[0]
  std::vector<RowId> dense_;
  std::vector<std::pair<int64_t, RowId>> sorted_;
};

void LinkPythonParents(Trace& trace) {
  PythonFrameTable& py = trace.python;
  std::vector<RowId> by_containment(py.size(), kNoRow);
  Nest(py, trace.tracks.size(), by_containment, [](RowId, size_t) {});
  PythonIdIndex by_id(py.python_id);
  for (size_t i = 0; i < py.size(); ++i) {
    RowId parent = by_id.Find(py.python_parent_id[i]);
    py.parent[i] = parent != kNoRow ? parent : by_containment[i];
  }
}

// Steps of a run follow each other; a step that holds or overlaps another step (a different
// number) cannot be one. A step holding others is left out, so the steps inside it stay the
// iterations; overlaps are counted. (Iterations are in time order: the cpu table is sorted.)
void DropNestedSteps(Trace& trace) {
  constexpr int64_t kTolerance = 1000;  // steps that touch within the tracer's rounding
  auto& its = trace.iterations;
  std::vector<uint8_t> outer(its.size(), 0);
  uint64_t nested = 0, overlapping = 0;
  std::string first;
  for (size_t i = 0; i < its.size(); ++i) {
    const int64_t end = its[i].start_ns + its[i].dur_ns;
    for (size_t j = i + 1; j < its.size() && its[j].start_ns < end - kTolerance; ++j) {
      bool inside = its[j].start_ns + its[j].dur_ns <= end;
      if (inside) {
        if (!outer[i]) ++nested;
        outer[i] = 1;
      } else {
        ++overlapping;
      }
      if (first.empty()) {
        first = "ProfilerStep#" + std::to_string(its[i].number) + " (" +
                base::FormatDuration(its[i].dur_ns) + ") " + (inside ? "holds" : "overlaps") +
                " ProfilerStep#" + std::to_string(its[j].number);
      }
    }
  }
  if (nested + overlapping == 0) return;
  size_t w = 0;
  for (size_t i = 0; i < its.size(); ++i) {
    if (!outer[i]) its[w++] = its[i];
  }
  its.resize(w);
  trace.problems.Add(kNestedSteps,
                     first + ": steps of one run follow each other; " +
                         (nested ? "steps that hold others are left out of the iterations"
                                 : "the overlapping steps are kept as written"),
                     nested + overlapping);
}

void FindIterations(Trace& trace) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  std::unordered_map<StringId, int64_t> step_of;  // name id -> step number, -1 if not a step
  std::unordered_map<int64_t, size_t> seen;
  trace.iterations.clear();
  for (size_t i = 0; i < trace.cpu.size(); ++i) {
    StringId n = trace.cpu.name[i];
    auto it = step_of.find(n);
    if (it == step_of.end()) {
      std::string_view s = trace.str(n);
      int64_t step = -1;
      if (s.substr(0, kPrefix.size()) == kPrefix) {
        if (auto v = base::ParseInt64(s.substr(kPrefix.size()))) step = *v;
      }
      it = step_of.emplace(n, step).first;
    }
    if (it->second < 0) continue;
    // The same step can be marked on several threads; the first (outermost) marker wins.
    if (!seen.emplace(it->second, trace.iterations.size()).second) continue;
    trace.iterations.push_back(
        Iteration{it->second, trace.cpu.start_ns[i], trace.cpu.dur_ns[i], static_cast<RowId>(i)});
  }
  DropNestedSteps(trace);
}

}  // namespace

void SortTablesByTime(Trace& trace) {
  SortTable(trace.kernels);
  SortTable(trace.memops);
  SortTable(trace.api);
  SortTable(trace.cpu);
  SortTable(trace.python);
  SortTable(trace.gpu_ranges);
}

// Launch calls whose kernel ran need no record of what they named: the kernel row says it.
static void DropLaunchArgsThatRan(Trace& trace) {
  if (trace.launch_args.empty()) return;
  std::unordered_set<uint64_t> ran;
  for (RowId l : trace.kernels.launch)
    if (l != kNoRow) ran.insert(trace.api.correlation[l]);
  auto& v = trace.launch_args;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const LaunchArgRow& r) { return ran.count(r.correlation) > 0; }),
          v.end());
  v.shrink_to_fit();
}

void LinkTrace(Trace& trace, const LinkOptions& options) {
  base::StageTimer timer;  // GPUSCOPE_TIMING=1: where the linking time goes
  SortTablesByTime(trace);
  timer.Lap("link: sort");
  DropDuplicateEvents(trace);
  timer.Lap("link: drop duplicates");
  LinkLaunches(trace);
  DropLaunchArgsThatRan(trace);
  timer.Lap("link: launches");
  // Every check compares events of one clock, so none changes with a device's shift; run first,
  // they say whether the launch links can be trusted to align by.
  CheckPlausibility(trace);
  timer.Lap("link: plausibility");
  if (options.align_clocks && trace.problems.Count(kLaunchOrder) == 0) {
    trace.meta.clock_shifts = LaunchClockShifts(trace);
    if (ShiftGpuClocks(trace, trace.meta.clock_shifts) > 0) {
      // Nothing refers to GPU rows yet (links point from them to calls): they may move.
      SortTable(trace.kernels);
      SortTable(trace.memops);
      SortTable(trace.gpu_ranges);
    }
  }
  // The Python frames' parents read and write only the python table; the CPU ranges' nesting
  // and enclosures never touch it: on a large trace both run at once.
  const size_t tracks = trace.tracks.size();
  uint64_t overlaps = 0;
  std::vector<std::function<void()>> jobs = {
      [&] {
        overlaps = Nest(trace.cpu, tracks, trace.cpu.parent, [&](RowId r, size_t depth) {
          trace.cpu.depth[r] = static_cast<uint16_t>(std::min<size_t>(depth, UINT16_MAX));
        });
        Enclose(trace.cpu, trace.api, tracks, trace.api.enclosing_op);
        Enclose(trace.python, trace.cpu, tracks, trace.cpu.python_frame);
      },
      [&] { LinkPythonParents(trace); }};
  const int threads = base::ThreadsFor(options.threads);
  const bool both = threads > 1 && trace.python.size() >= options.parallel_min_rows &&
                    trace.cpu.size() >= options.parallel_min_rows / 4;
  base::RunJobs(jobs, both ? 2 : 1);
  if (overlaps > 0) {
    trace.problems.Add(ProblemKind::kLinkCpuRangesOverlap,
                       "CPU ranges on one thread overlap without nesting; each was treated as "
                       "a sibling of the range it overlaps",
                       overlaps);
  }
  timer.Lap("link: nest CPU ranges, enclose, python parents");
  FindIterations(trace);
  timer.Lap("link: steps");
}

}  // namespace gpuscope::model
