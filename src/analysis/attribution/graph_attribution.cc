#include "analysis/attribution/graph_attribution.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/work/work_models.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// Above this many DP cells (replayed x captured kernels) a graph is matched greedily in order.
constexpr size_t kMaxCells = size_t{1} << 26;

bool IsCaptureCall(std::string_view n, std::string_view what) {
  return n.find("StreamBeginCapture") != std::string_view::npos ? what == "begin"
         : n.find("StreamEndCapture") != std::string_view::npos ? what == "end"
                                                                : false;
}

// Score of pairing a replayed kernel with a captured launch: 0 = different kernels.
int PairScore(int name_a, int name_b, const model::Dim3& ga, const model::Dim3& ba,
              const CapturedLaunch& c) {
  if (name_a < 0 || name_a != name_b) return 0;
  bool known = ga[0] && c.grid[0];
  return known && ga == c.grid && ba == c.block ? 3 : 2;
}

struct Replay {
  std::vector<size_t> kernels;  // rows, in start order
  model::RowId launch = model::kNoRow;
};

// Weighted LCS of one replay against one captured graph: match[i] = captured index or -1.
int64_t Align(const std::vector<int>& names, const model::Trace& t, const Replay& r,
              const std::vector<int>& cap_names, const CapturedGraph& g, std::vector<int>* match) {
  size_t n = r.kernels.size(), m = g.launches.size();
  match->assign(n, -1);
  auto score = [&](size_t i, size_t j) {
    size_t k = r.kernels[i];
    return PairScore(names[i], cap_names[j], t.kernels.grid[k], t.kernels.block[k], g.launches[j]);
  };
  if (n == 0 || m == 0) return 0;
  if (n * m > kMaxCells) {
    // Greedy in order: each replayed kernel takes the next captured launch of its name.
    int64_t total = 0;
    size_t j = 0;
    for (size_t i = 0; i < n && j < m; ++i) {
      size_t look = j;
      while (look < m && look < j + 64 && !score(i, look)) ++look;
      if (look < m && score(i, look))
        (*match)[i] = static_cast<int>(look), total += score(i, look), j = look + 1;
    }
    return total;
  }
  std::vector<int64_t> dp((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> int64_t& { return dp[i * (m + 1) + j]; };
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      int s = score(i - 1, j - 1);
      int64_t best = std::max(at(i - 1, j), at(i, j - 1));
      if (s) best = std::max(best, at(i - 1, j - 1) + s);
      at(i, j) = best;
    }
  }
  for (size_t i = n, j = m; i > 0 && j > 0;) {
    int s = score(i - 1, j - 1);
    if (s && at(i, j) == at(i - 1, j - 1) + s) {
      (*match)[i - 1] = static_cast<int>(j - 1);
      --i, --j;
    } else if (at(i - 1, j) >= at(i, j - 1)) {
      --i;
    } else {
      --j;
    }
  }
  return at(n, m);
}

}  // namespace

uint64_t CountGraphLaunches(const model::Trace& t) {
  std::vector<bool> seen(t.api.size(), false);
  uint64_t n = 0;
  for (model::RowId l : t.kernels.launch) {
    if (l != model::kNoRow && !seen[l] && IsGraphLaunchApi(t.str(t.api.name[l])))
      seen[l] = true, ++n;
  }
  return n;
}

std::string GraphAttribution::Summary() const {
  if (graph_kernels == 0) return "no graph launches";
  if (captures == 0)
    return base::FormatCount(graph_kernels) + " kernels from " + base::FormatCount(graph_launches) +
           " graph launch" + (graph_launches == 1 ? "" : "es") +
           ", no capture in the trace or given (--capture FILE): attributed to the frame of the "
           "graph launch";
  return base::FormatCount(matched) + " of " + base::FormatCount(graph_kernels) +
         " graph kernels (" +
         base::FormatFixed(
             100.0 * static_cast<double>(matched) / static_cast<double>(graph_kernels), 1) +
         "%) matched to " + base::FormatCount(captures) + " captured graph" +
         (captures == 1 ? "" : "s") + ", from " + base::FormatCount(graph_launches) +
         " graph launch" + (graph_launches == 1 ? "" : "es");
}

namespace {

std::vector<CapturedGraph> CapturesIn(const model::Trace& t, const Attributor& at,
                                      const std::string& label) {
  std::vector<CapturedGraph> out;
  if (t.launch_args.empty()) return out;
  std::unordered_map<uint64_t, const model::LaunchArgRow*> args;
  for (const auto& l : t.launch_args) args.emplace(l.correlation, &l);
  std::map<model::TrackId, int> open;  // thread -> index of its graph being captured
  for (size_t i = 0; i < t.api.size(); ++i) {
    std::string_view n = t.str(t.api.name[i]);
    model::TrackId tr = t.api.track[i];
    if (IsCaptureCall(n, "begin")) {
      out.push_back({label + ", capture " + std::to_string(out.size() + 1), {}});
      open[tr] = static_cast<int>(out.size() - 1);
      continue;
    }
    auto o = open.find(tr);
    if (o == open.end()) continue;
    if (IsCaptureCall(n, "end")) {
      open.erase(o);
      continue;
    }
    auto a = args.find(t.api.correlation[i]);
    if (a == args.end()) continue;
    CapturedLaunch c;
    c.kernel = std::string(t.str(a->second->kernel));
    c.grid = a->second->grid, c.block = a->second->block;
    c.where = at.Api(static_cast<model::RowId>(i));
    if (c.where.python.empty()) c.where.python = at.PythonOfApi(static_cast<model::RowId>(i));
    model::RowId op = ModelledOpAround(t, t.api.enclosing_op[i]);
    if (op != model::kNoRow) {
      c.work.op = std::string(t.str(t.cpu.name[op]));
      c.work.args = std::string(t.str(t.cpu.args[op]));
      c.work.call = static_cast<int64_t>(op);
    }
    out[static_cast<size_t>(o->second)].launches.push_back(std::move(c));
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const CapturedGraph& g) { return g.launches.empty(); }),
            out.end());
  return out;
}

}  // namespace

std::vector<CapturedGraph> FindCapturedGraphs(const model::Trace& t, const std::string& label) {
  if (t.launch_args.empty()) return {};
  return CapturesIn(t, Attributor(t), label);
}

GraphAttribution AttributeGraphKernels(const model::Trace& t, const Attributor& at,
                                       const std::vector<CapturedGraph>& given) {
  std::vector<CapturedGraph> graphs = CapturesIn(t, at, "this trace");
  graphs.insert(graphs.end(), given.begin(), given.end());
  GraphAttribution r;
  r.captures = graphs.size();
  r.kernel_origin.assign(t.kernels.size(), -1);
  // Replays: the kernels of each graph launch call, in start order.
  std::map<model::RowId, Replay> replays;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    model::RowId l = t.kernels.launch[k];
    if (l != model::kNoRow && IsGraphLaunchApi(t.str(t.api.name[l]))) {
      replays[l].kernels.push_back(k), replays[l].launch = l;
      ++r.graph_kernels;
    }
  }
  r.graph_launches = replays.size();
  if (replays.empty()) return r;
  // Kernel names as small integers shared by both sides (-1: in no capture).
  std::unordered_map<std::string_view, int> ids;
  std::vector<std::vector<int>> cap_names(graphs.size());
  for (size_t g = 0; g < graphs.size(); ++g) {
    for (const auto& c : graphs[g].launches)
      cap_names[g].push_back(ids.emplace(c.kernel, static_cast<int>(ids.size())).first->second);
  }
  std::unordered_map<model::StringId, int> kernel_id;
  auto id_of = [&](model::StringId s) {
    auto [it, inserted] = kernel_id.emplace(s, -1);
    if (inserted) {
      auto f = ids.find(t.str(s));
      it->second = f == ids.end() ? -1 : f->second;
    }
    return it->second;
  };
  // Origins: one per (graph, captured launch) and one per graph launch call (unmatched kernels).
  std::map<std::pair<size_t, int>, int32_t> origin_index;
  // Identical replays (same kernel sequence) are matched once.
  std::map<std::vector<int>, std::pair<int, std::vector<int>>> cache;
  for (auto& [launch, rep] : replays) {
    std::vector<int> names;
    for (size_t k : rep.kernels) names.push_back(id_of(t.kernels.name[k]));
    auto c = cache.find(names);
    if (c == cache.end()) {
      // The graph with the best alignment; candidates ranked first by the names they share.
      std::vector<std::pair<int64_t, size_t>> bound;
      std::unordered_map<int, int64_t> want;
      for (int n : names) ++want[n];
      for (size_t g = 0; g < graphs.size(); ++g) {
        std::unordered_map<int, int64_t> have = {};
        for (int n : cap_names[g]) ++have[n];
        int64_t shared = 0;
        for (const auto& [n, count] : want) shared += n >= 0 ? std::min(count, have[n]) : 0;
        if (shared > 0) bound.emplace_back(shared, g);
      }
      std::sort(bound.begin(), bound.end(), std::greater<>());
      int best = -1;
      int64_t best_score = 0;
      std::vector<int> best_match, match;
      for (size_t b = 0; b < bound.size() && b < 4; ++b) {
        int64_t s =
            Align(names, t, rep, cap_names[bound[b].second], graphs[bound[b].second], &match);
        if (s > best_score)
          best_score = s, best = static_cast<int>(bound[b].second), best_match = match;
      }
      c = cache.emplace(names, std::make_pair(best, best_match)).first;
    }
    const auto& [graph, match] = c->second;
    // The launch call's own place, for the kernels no capture explains.
    Where call = at.Api(launch);
    if (call.python.empty()) call.python = at.PythonOfApi(launch);
    call.graph =
        "in graph (" + std::string(t.str(t.api.name[launch])) + ", no captured launch matched)";
    int32_t unmatched = -1;
    for (size_t i = 0; i < rep.kernels.size(); ++i) {
      size_t k = rep.kernels[i];
      if (graph >= 0 && match[i] >= 0) {
        auto [it, inserted] =
            origin_index.emplace(std::make_pair(static_cast<size_t>(graph), match[i]),
                                 static_cast<int32_t>(r.origins.size()));
        if (inserted) {
          const CapturedLaunch& l =
              graphs[static_cast<size_t>(graph)].launches[static_cast<size_t>(match[i])];
          Where w = l.where;
          w.graph = "in graph (" + graphs[static_cast<size_t>(graph)].origin + ")";
          r.origins.push_back(std::move(w));
          CapturedWork work = l.work;
          if (work.call >= 0) work.call |= static_cast<int64_t>(graph) << 40;
          r.origin_work.push_back(std::move(work));
        }
        r.kernel_origin[k] = it->second;
        ++r.matched;
      } else {
        if (unmatched < 0) {
          unmatched = static_cast<int32_t>(r.origins.size()), r.origins.push_back(call);
          r.origin_work.emplace_back();
        }
        r.kernel_origin[k] = unmatched;
      }
    }
  }
  return r;
}

}  // namespace gpuscope::analysis
