// The critical path of a replay, walked back from the last end, by category and place.

#include <algorithm>
#include <map>

#include "analysis/common/deepest_range.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/replay/replay_graph_internal.h"

namespace gpuscope::analysis {

using namespace replay_internal;  // NOLINT: the graph's shared constants and helpers

model::RowId ReplayGraph::RangeAt(uint32_t lane, int64_t ts) const {
  return DeepestRangeAt(t_, lane_cpu_[lane], ts, /*end_inclusive=*/false);
}

std::pair<std::string_view, std::string_view> ReplayGraph::GapCategory(uint32_t v,
                                                                       int64_t ts) const {
  const auto& cpu = t_.cpu;
  model::RowId deepest = RangeAt(lane_[v], ts);
  model::RowId op = model::kNoRow;
  for (model::RowId r = deepest; r != model::kNoRow; r = cpu.parent[r]) {
    if (IsDataLoaderRange(t_.str(cpu.name[r]))) return {"data loading", t_.str(cpu.name[r])};
    if (op == model::kNoRow && cpu.kind[r] == model::CpuRangeKind::kOp) op = r;
  }
  if (op != model::kNoRow) return {"op dispatch", t_.str(cpu.name[op])};
  return {t_.python.size() ? "Python" : "host work", {}};
}

namespace {

// The path's time by category, largest first, and its five largest places.
void SummarizePath(const std::map<std::string_view, int64_t>& share,
                   const std::map<std::pair<std::string_view, std::string_view>, int64_t>& places,
                   ReplayResult& out) {
  for (const auto& [cat, ns] : share) out.path.push_back({std::string(cat), ns});
  std::sort(out.path.begin(), out.path.end(),
            [](const PathShare& a, const PathShare& b) { return a.ns > b.ns; });
  // The five largest places, copied out (ties by category and name, as the map ordered them).
  std::vector<std::pair<int64_t, const std::pair<std::string_view, std::string_view>*>> ranked;
  for (const auto& [key, ns] : places) ranked.emplace_back(ns, &key);
  size_t keep = std::min<size_t>(5, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<ptrdiff_t>(keep), ranked.end(),
                    [](const auto& a, const auto& b) {
                      if (a.first != b.first) return a.first > b.first;
                      return *a.second < *b.second;
                    });
  for (size_t i = 0; i < keep; ++i) {
    out.top_places.push_back({std::string(ranked[i].second->first),
                              std::string(ranked[i].second->second), ranked[i].first});
  }
}

}  // namespace

void ReplayGraph::WalkPath(const Params& p, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& end, uint32_t last, ReplayResult& out,
                           std::vector<PathSegment>* segments) const {
  // Categories are literals and places views into the trace's names: both outlive the walk.
  std::map<std::string_view, int64_t> share;
  std::map<std::pair<std::string_view, std::string_view>, int64_t> places;
  // The walk goes back in time: each stretch ends where the one after it (added before) began,
  // on the row of the node being walked.
  int64_t at = 0;
  uint32_t on = last;
  auto add = [&](std::string_view cat, std::string_view name, int64_t ns) {
    if (ns <= 0) return;
    share[cat] += ns;
    if (!name.empty()) places[{cat, name}] += ns;
    if (segments) segments->push_back({at - ns, at, cat, name, lane_track_[lane_[on]]});
    at -= ns;
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
    if (IsSyncApi(n)) return "sync waits";
    if (IsCopyApi(n)) return "copy calls";
    if (IsLaunchApi(n)) return "launch calls";
    return "other runtime calls";
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
    if (p.xdep[v] != kNone && end[p.xdep[v]] + xoff_[v] == s) {
      add(lane_is_host_[lane_[v]] ? "thread handoffs" : "stream waits", {}, xoff_[v]);
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
  if (segments) std::reverse(segments->begin(), segments->end());
  SummarizePath(share, places, out);
}

}  // namespace gpuscope::analysis
