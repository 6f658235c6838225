// The critical path of a replay, walked back from the last end, by category and place.

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/common/deepest_range.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

model::RowId ReplayGraph::RangeAt(uint32_t lane, int64_t ts) const {
  return DeepestRangeAt(t_, lane_cpu_[lane], ts, /*end_inclusive=*/false);
}

std::pair<std::string_view, std::string_view> ReplayGraph::GapCategory(uint32_t v, int64_t ts,
                                                                       LoaderNames& loader) const {
  const auto& cpu = t_.cpu;
  model::RowId deepest = RangeAt(lane_[v], ts);
  model::RowId op = model::kNoRow;
  for (model::RowId r = deepest; r != model::kNoRow; r = cpu.parent[r]) {
    if (loader(cpu.name[r])) return {"data loading", t_.str(cpu.name[r])};
    if (op == model::kNoRow && cpu.kind[r] == model::CpuRangeKind::kOp) op = r;
  }
  // Without GPU work in the trace (a CPU-only run) an op's time is its own computation, not the
  // dispatch of work it hands to a GPU.
  if (op != model::kNoRow) {
    const bool gpu_work = t_.kernels.size() + t_.memops.size() > 0;
    return {gpu_work ? "op dispatch" : "CPU op compute", t_.str(cpu.name[op])};
  }
  return {t_.python.size() ? "Python" : "host work", {}};
}

namespace {

// The path's time per place (category and name): the walk adds one entry per stretch, kept as a
// flat array merged in place whenever it fills (24 bytes per distinct place, not a map node of
// ~80: a path through a million kernels of their own names, issue 33). Names are views of the
// trace's interned names, so one name has one address.
class PlaceSums {
 public:
  void Add(std::string_view cat, std::string_view name, int64_t ns) {
    if (entries_.size() == entries_.capacity() && entries_.size() >= kMergeFrom) {
      Merge();
      // Grow only when merging freed less than half: repeated places cost no memory.
      if (entries_.size() * 2 > entries_.capacity()) entries_.reserve(entries_.capacity() * 2);
    }
    entries_.push_back({name.data(), static_cast<uint32_t>(name.size()), CategoryIndex(cat), ns});
  }
  // The five largest places, ties by category then name.
  std::vector<PathPlace> Top(size_t keep) {
    Merge();
    auto view = [&](const Entry& e) {
      return std::pair{cats_[e.cat], std::string_view(e.name, e.len)};
    };
    keep = std::min(keep, entries_.size());
    std::partial_sort(entries_.begin(), entries_.begin() + static_cast<ptrdiff_t>(keep),
                      entries_.end(), [&](const Entry& a, const Entry& b) {
                        if (a.ns != b.ns) return a.ns > b.ns;
                        return view(a) < view(b);
                      });
    std::vector<PathPlace> out;
    for (size_t i = 0; i < keep; ++i) {
      const auto [cat, name] = view(entries_[i]);
      out.push_back({std::string(cat), std::string(name), entries_[i].ns});
    }
    return out;
  }

 private:
  static constexpr size_t kMergeFrom = 4096;
  struct Entry {
    const char* name;
    uint32_t len;
    uint16_t cat;
    int64_t ns;
  };
  uint16_t CategoryIndex(std::string_view cat) {
    for (size_t i = 0; i < cats_.size(); ++i)
      if (cats_[i] == cat) return static_cast<uint16_t>(i);
    cats_.push_back(cat);
    return static_cast<uint16_t>(cats_.size() - 1);
  }
  void Merge() {
    auto key = [](const Entry& e) { return std::tuple(e.cat, e.name, e.len); };
    std::sort(entries_.begin(), entries_.end(),
              [&](const Entry& a, const Entry& b) { return key(a) < key(b); });
    size_t w = 0;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (w > 0 && key(entries_[w - 1]) == key(entries_[i]))
        entries_[w - 1].ns += entries_[i].ns;
      else
        entries_[w++] = entries_[i];
    }
    entries_.resize(w);
  }
  std::vector<std::string_view> cats_;  // literals: a few per path
  std::vector<Entry> entries_;
};

// The path's time by category, largest first, and its five largest places.
void SummarizePath(const std::map<std::string_view, int64_t>& share, PlaceSums& places,
                   ReplayResult& out) {
  for (const auto& [cat, ns] : share) out.path.push_back({std::string(cat), ns});
  std::sort(out.path.begin(), out.path.end(),
            [](const PathShare& a, const PathShare& b) { return a.ns > b.ns; });
  out.top_places = places.Top(5);
}

// A runtime call's category on the critical path, by its name.
const char* CallCategory(std::string_view n) {
  if (IsSyncApi(n)) return "sync waits";
  if (IsCopyApi(n)) return "copy calls";
  if (IsLaunchApi(n)) return "launch calls";
  return "other runtime calls";
}

}  // namespace

// A launch call this long is its own time on the path, not launch latency.
constexpr int64_t kLongLaunchCallNs = 1'000'000;

void ReplayGraph::WalkPath(const Params& p, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& end, uint32_t last, ReplayResult& out,
                           std::vector<PathSegment>* segments) const {
  // Categories are literals and places views into the trace's names: both outlive the walk.
  std::map<std::string_view, int64_t> share;
  PlaceSums places;
  LoaderNames loader(t_, IsDataLoaderRange);
  // Back in time: each stretch ends where the one after it (added before) began, on `on`'s row.
  int64_t at = 0;
  uint32_t on = last;
  auto add = [&](std::string_view cat, std::string_view name, int64_t ns) {
    if (ns <= 0) return;
    share[cat] += ns;
    if (!name.empty()) places.Add(cat, name, ns);
    if (segments) segments->push_back({at - ns, at, cat, name, lane_track_[lane_[on]]});
    at -= ns;
  };
  auto name_of = [&](uint32_t v) -> std::string_view {
    const Kind k = kind_[v];
    if (k == Kind::kKernel) return t_.str(t_.kernels.name[row_[v]]);
    if (k == Kind::kCopy) return t_.str(t_.memops.name[row_[v]]);
    return k == Kind::kCall ? t_.str(t_.api.name[row_[v]]) : std::string_view();
  };
  NameMemo call_categories(t_, CallCategory);  // once per distinct call name
  auto call_category = [&](uint32_t v) {
    return kind_[v] == Kind::kCall ? call_categories(t_.api.name[row_[v]])
                                   : CallCategory(name_of(v));
  };
  uint32_t v = last;
  at = end[last];
  bool at_end = true;
  size_t guard = 4 * nodes() + 8;
  while (guard-- > 0) {
    on = v;
    if (at_end) {
      int64_t waited = p.wait[v] != kNone ? end[p.wait[v]] + post_[v] : kNoFloor;
      if (waited == end[v] && waited > start[v] + p.dur[v]) {
        add(kind_[v] == Kind::kCall ? call_category(v) : "sync waits", name_of(v), post_[v]);
        v = p.wait[v];
        continue;
      }
      const char* cat = kind_[v] == Kind::kKernel ? "GPU kernels"
                        : kind_[v] == Kind::kCopy ? "GPU copies"
                        : kind_[v] == Kind::kCall ? call_category(v)
                                                  : "host work";
      add(cat, name_of(v), end[v] - start[v]);
      at_end = false;
      continue;
    }
    int64_t s = start[v];
    if (s <= w0_) break;
    if (launch_[v] != kNone && start[launch_[v]] + p.lat[v] == s) {
      // A launch call of 1 ms or more (a module loaded, a profiler replaying the kernel) is the
      // call's time, never launch latency: the op did not start before the call returned.
      const uint32_t call = launch_[v];
      const int64_t in_call = std::min(p.lat[v], end[call] - start[call]);
      if (in_call >= kLongLaunchCallNs) {
        add("launch latency", {}, p.lat[v] - in_call);
        on = call;
        add(call_category(call), name_of(call), in_call);
      } else {
        add("launch latency", {}, p.lat[v]);
      }
      v = call;
      continue;
    }
    if (p.xdep[v] != kNone && end[p.xdep[v]] + xoff_[v] == s) {
      const bool host = lane_is_host_[lane_[v]];
      // A host thread that waited for a GPU op without a call (InferPolls) went on as it ended
      // (or a little before: a flag the kernel writes on its way out).
      const bool poll =
          host && kind_[p.xdep[v]] != Kind::kCall && kind_[p.xdep[v]] != Kind::kHostEdge;
      add(poll ? "untraced waits" : host ? "thread handoffs" : "stream waits", {}, xoff_[v]);
      // (A poll that ended before its op did: the path stays contiguous, the op's stretch ends
      // where the host's began.)
      v = p.xdep[v];
      at_end = true;
      continue;
    }
    if (p.xdep[v] != kNone && has_more_[v]) {
      const auto& more = more_waits_.at(v);
      auto held = std::find_if(more.begin(), more.end(),
                               [&](const auto& w) { return end[w.first] + w.second == s; });
      if (held != more.end()) {
        add("stream waits", {}, held->second);
        v = held->first;
        at_end = true;
        continue;
      }
    }
    uint32_t q = p.lane_prev[v];
    bool gap = UsesGap(v, p);
    if (q != kNone && end[q] + (gap ? p.gap[v] : 0) == s) {
      if (gap && p.gap[v] > 0 && !lane_is_host_[lane_[v]]) {
        // A queued op's gap longer than a dispatch gap waited for something the trace does not
        // show (an event recorded elsewhere, another process).
        add(launch_[v] == kNone             ? "GPU gaps (unlinked ops)"
            : p.gap[v] <= kMaxDispatchGapNs ? "GPU dispatch gaps"
                                            : "GPU waits (not in the trace)",
            {}, p.gap[v]);
      } else if (gap && p.gap[v] > 0) {
        // The host work of the gap, by what ran there: sampled at up to 256 points (one per
        // 50 us), so that a long gap - a CPU-only run is one - is split, not named after one op.
        int64_t len = p.gap[v];
        int64_t slices = std::clamp<int64_t>(len / 50'000, 1, 256);
        for (int64_t k = slices - 1; k >= 0; --k) {  // back in time, as the walk goes
          int64_t a = len * k / slices, b = len * (k + 1) / slices;
          auto [cat, place] = GapCategory(v, obs_start_[v] - len + (a + b) / 2, loader);
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
  if (segments) std::reverse(segments->begin(), segments->end());
  SummarizePath(share, places, out);
}

}  // namespace gpuscope::analysis
