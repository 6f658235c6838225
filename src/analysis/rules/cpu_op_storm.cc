// cpu-op-storm: floods of tiny CPU ops issued from one place per iteration.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

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
    if (cpu.kind[i] != model::CpuRangeKind::kOp || !c.In(cpu.start_ns[i]) ||
        cpu.dur_ns[i] >= c.o().tiny_op_ns)
      continue;
    RowId p = cpu.parent[i];
    // Only ops issued from Python or a user range count: the child ops of a framework op
    // (namespaced: aten::mul's aten::empty, cudnn_convolution's helpers) are its implementation.
    if (p != kNoRow && cpu.kind[p] == model::CpuRangeKind::kOp &&
        t.str(cpu.name[p]).find("::") != std::string_view::npos) {
      continue;
    }
    RowId frame = c.at().UserFrameOfCpu(static_cast<RowId>(i));
    std::string key = frame != kNoRow ? std::string(t.str(t.python.name[frame]))
                      : p != kNoRow   ? std::string(t.str(cpu.name[p]))
                                      : std::string("(top level)");
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
    double calls = static_cast<double>(
        g.frames.empty() ? std::max<size_t>(1, c.steady().steady_count()) : g.frames.size());
    if (!g.frames.empty()) {
      base = 0;
      for (RowId f : g.frames) base += t.python.dur_ns[f];
    }
    double ops_per_call = static_cast<double>(g.ops) / calls;
    int64_t impact =
        static_cast<int64_t>(static_cast<double>(base) * (1.0 - 1.0 / std::max(1.0, ops_per_call)));
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
    f.detail = base::FormatCount(g.ops) + " ops < " + base::FormatDuration(c.o().tiny_op_ns) +
               " (" + c.PerIterationText(static_cast<double>(g.ops)) + "): " + mix;
    if (!g.frames.empty()) {
      std::vector<RowId> frames(g.frames.begin(), g.frames.end());
      std::sort(frames.begin(), frames.end(),
                [&](RowId a, RowId b) { return t.python.dur_ns[a] > t.python.dur_ns[b]; });
      for (RowId fr : frames)
        AddEvidence(c, f, t.python.start_ns[fr], t.python.dur_ns[fr], "call of " + key);
    } else {
      for (size_t r : g.rows)
        AddEvidence(c, f, cpu.start_ns[r], cpu.dur_ns[r], std::string(t.str(cpu.name[r])));
    }
    out.push_back(std::move(f));
  }
}

}  // namespace gpuscope::analysis::internal
