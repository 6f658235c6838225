// cpu-op-storm: floods of tiny CPU ops issued from one place per iteration.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

namespace {

bool EndsWith(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// Model code, not a loop over elements: a module's forward ("model.py(35): forward",
// "DistributedDataParallel.forward", "nn.Module: Linear_0", torchrec's "## forward:over_arch ##"),
// a compiled region (CompiledFunction, Torch-Compiled Region, Inductor's graphs), an autograd
// node ("autograd::engine::evaluate_function: MulBackward0"). Their op floods are the model's
// own ops: fusion, torch.compile or graphs reduce them (launch-bound's advice), not a rewrite.
bool IsModelCode(std::string_view place) {
  if (IsCompiledRegion(place)) return true;
  for (std::string_view marker : {"torch/_dynamo", "torch/_inductor", "autograd::engine::"}) {
    if (place.find(marker) != std::string_view::npos) return true;
  }
  if (place.rfind("nn.Module: ", 0) == 0) return true;
  if (place.rfind("## ", 0) == 0 && (place.find("forward") != std::string_view::npos ||
                                     place.find("backward") != std::string_view::npos))
    return true;
  if (place == "forward" || EndsWith(place, ".forward") || EndsWith(place, ": forward") ||
      EndsWith(place, "._call_impl") || EndsWith(place, ": _call_impl"))
    return true;
  // An autograd node's range: "MulBackward0", "torch::autograd::AccumulateGrad".
  size_t b = place.rfind("Backward");
  if (b != std::string_view::npos &&
      place.find_first_not_of("0123456789", b + 8) == std::string_view::npos)
    return true;
  return place.find("autograd::AccumulateGrad") != std::string_view::npos;
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  // A place: the innermost Python frame that calls the ops itself (the loop's body, not a
  // model's forward that reaches them through submodules), else the enclosing user range.
  struct Group {
    size_t ops = 0;
    int64_t op_ns = 0;
    std::unordered_map<RowId, size_t> calls;   // frame or range instance -> its ops
    std::map<std::string_view, size_t> names;  // views into the trace's names
    bool frames = false;
  };
  std::map<std::string_view, Group> groups;  // by place (a view into the trace's names)
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
    if (claims.Explains(cpu.start_ns[i], cpu.end_ns(i))) continue;  // inside the loader, a sync
    RowId frame = cpu.python_frame[i];
    // The script's top level or a frame spanning whole iterations is the loop driver, not a place.
    int64_t iteration = c.steady().latency.median_ns;
    bool driver =
        frame != kNoRow && ((t.python.parent[frame] == kNoRow &&
                             (iteration == 0 || t.python.dur_ns[frame] >= iteration)) ||
                            (iteration > 0 && 2 * t.python.dur_ns[frame] > 3 * iteration));
    if (frame != kNoRow && driver) frame = kNoRow;
    std::string_view range = p != kNoRow ? t.str(cpu.name[p]) : std::string_view();
    // The step itself is no place: a ProfilerStep, or a range as long as a step ("step 5"),
    // whose name changes from step to step.
    if (range.rfind("ProfilerStep#", 0) == 0 ||
        (p != kNoRow && iteration > 0 && 3 * cpu.dur_ns[p] >= 2 * iteration))
      range = {};
    if (frame == kNoRow && range.empty()) continue;  // no place to name: not one loop
    std::string_view key = frame != kNoRow ? t.str(t.python.name[frame]) : range;
    Group& g = groups[key];
    g.frames = frame != kNoRow;
    ++g.ops;
    g.op_ns += cpu.dur_ns[i];
    ++g.calls[frame != kNoRow ? frame : p];
    ++g.names[t.str(cpu.name[i])];
  }
  for (auto& [key, g] : groups) {
    if (IsModelCode(key)) continue;
    // An optimizer's foreach path issues one multi-tensor op per group of tensors: not a loop.
    size_t foreach_ops = 0;
    for (const auto& [n, k] : g.names)
      foreach_ops += n.find("_foreach_") != std::string_view::npos ? k : 0;
    if (2 * foreach_ops > g.ops) continue;
    double per_call = static_cast<double>(g.ops) / static_cast<double>(g.calls.size());
    // A flood per iteration, and from each call of the place (one loop, not many small calls).
    if (c.PerIteration(static_cast<double>(g.ops)) < c.o().storm_ops_per_iteration ||
        (g.frames && per_call < c.o().storm_ops_per_iteration))
      continue;
    Candidate cand{Make(c, "cpu-op-storm", 0), {}};
    Finding& f = cand.finding;
    f.where.python = g.frames ? std::string(key) : "";
    std::vector<std::pair<size_t, std::string>> ranked;
    for (auto& [n, k] : g.names) ranked.emplace_back(k, std::string(n));
    std::sort(ranked.rbegin(), ranked.rend());
    f.where.op = g.frames ? ranked.front().second : key;
    std::string mix;
    for (size_t k = 0; k < ranked.size() && k < 4; ++k) {
      mix += (k ? ", " : "") + ranked[k].second + " x" + base::FormatCount(ranked[k].first);
    }
    f.detail = base::FormatCount(g.ops) + " ops < " + base::FormatDuration(c.o().tiny_op_ns) +
               " (" + c.PerIterationText(static_cast<double>(g.ops)) + ", " +
               base::FormatFixed(per_call, 0) + " per call): " + mix;
    // Vectorised: each call's host time becomes that of one op.
    int64_t one_op = g.op_ns / static_cast<int64_t>(g.ops);
    std::vector<std::pair<int64_t, RowId>> calls;
    for (auto [row, n] : g.calls) {
      if (row == kNoRow) continue;
      int64_t s = g.frames ? t.python.start_ns[row] : cpu.start_ns[row];
      int64_t d = g.frames ? t.python.dur_ns[row] : cpu.dur_ns[row];
      model::TrackId tr = g.frames ? t.python.track[row] : cpu.track[row];
      if (d <= 0) continue;
      double factor = std::min(1.0, static_cast<double>(one_op) / static_cast<double>(d));
      cand.fix.host_scale.push_back({tr, s, s + d, factor});
      claims.Explain(s, s + d);
      calls.emplace_back(d, row);
    }
    cand.fix.what =
        "vectorised: each call's host time becomes one op's (" + base::FormatDuration(one_op) + ")";
    std::sort(calls.rbegin(), calls.rend());
    for (auto [d, row] : calls) {
      AddEvidence(c, f, g.frames ? t.python.start_ns[row] : cpu.start_ns[row], d,
                  "call of " + std::string(key));
    }
    out.push_back(std::move(cand));
  }
}

}  // namespace

const RuleInfo& CpuOpStormRule() {
  static const RuleInfo rule{
      "cpu-op-storm",
      "A flood of tiny CPU ops from one place per iteration",
      "The innermost Python frame that calls framework ops itself (the loop body, not a "
      "model's forward reaching them through submodules; not the script's top level or a "
      "frame spanning whole iterations) issues more than the threshold of ops per iteration "
      "and per call, each shorter than --tiny-op-us: the per-element Python loop (select / "
      "item / mul / gt ...). Without Python stacks, one user annotation (such as "
      "Optimizer.step) per iteration. Only ops called from Python or a user range count, not "
      "the child ops a framework op (namespaced: aten::...) runs inside itself. Fires with or "
      "without a GPU. Never fires on model code, whose op flood is the model's own (fusion, "
      "torch.compile or graphs reduce it: launch-bound): a module's forward (model.py: forward, "
      "X.forward, nn.Module: X, torchrec's ## forward:... ##), a compiled region "
      "(CompiledFunction, Torch-Compiled Region), an autograd node (...Backward0, "
      "AccumulateGrad), or an optimizer's foreach path (mostly _foreach_ ops); a per-parameter "
      "optimizer loop (SGD.step issuing add_ per tensor) is a loop and is reported.",
      "replayed: each call's host time scaled down to that of one op (a vectorised version); "
      "the GPU work it launches is kept. Saves only while that host time is on the critical "
      "path.",
      "Vectorise the loop: one tensor expression (torch.where, masks, broadcasting) instead "
      "of a Python loop over elements; or torch.compile the function.",
      {{"--storm-ops", "cpu-op-storm: tiny ops per iteration and per call from one place", 50,
        [](AnalyzeOptions& o, double v) { o.storm_ops_per_iteration = v; }},
       {"--tiny-op-us", "cpu-op-storm: ops shorter than this (us)", 50,
        [](AnalyzeOptions& o, double v) { o.tiny_op_ns = static_cast<int64_t>(v * 1e3); }}},
      &Detect,
      {},
      "model code (a module's forward, a compiled region, an autograd node, an "
      "optimizer's foreach path); ops a framework op runs inside itself; ops at least "
      "--tiny-op-us long."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
