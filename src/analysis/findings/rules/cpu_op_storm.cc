// cpu-op-storm: floods of tiny CPU ops issued from one place per iteration.

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/common/name_memo.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace cpu_op_storm_rule {
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
  // torch/optim and torch/nn/modules: an optimizer's per-parameter loop (zero_grad, step) and
  // model.to()'s per-tensor conversion loop over tensors, not elements: foreach / fused
  // optimizers and moving the model once are their fixes.
  for (std::string_view marker : {"torch/_dynamo", "torch/_inductor", "autograd::engine::",
                                  "torch/optim/", "torch/nn/modules/module.py"}) {
    if (place.find(marker) != std::string_view::npos) return true;
  }
  if (place.rfind("nn.Module: ", 0) == 0 || place.rfind("Optimizer.", 0) == 0) return true;
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

// A namespaced name: a framework op's (aten::mul, c10d::allreduce_).
bool IsNamespaced(std::string_view n) { return n.find("::") != std::string_view::npos; }
using NamespacedNames = NameMemo<bool (*)(std::string_view)>;

// Whether an op runs inside framework op `p` (namespaced: aten::mul's aten::empty,
// cudnn_convolution's helpers): its implementation, not the program's own call.
bool InsideFrameworkOp(const Trace& t, RowId p, NamespacedNames& namespaced) {
  return p != kNoRow && t.cpu.kind[p] == model::CpuRangeKind::kOp && namespaced(t.cpu.name[p]);
}

// A loop without a recorded place: op runs between framework ops (LooseRuns).
constexpr std::string_view kLoosePlace = "(a loop of ops with no Python frame or range recorded)";
// Ops further apart than this are not one loop's; a loop body is a few ops (select, item, gt).
constexpr int64_t kRunGapNs = 20'000;
constexpr size_t kRunNames = 4;

// In a trace recorded without Python stacks, the ops a loop over elements issues sit between
// the step's framework ops with no frame or range around them: runs, on one thread, of such
// ops (`unplaced`), each at most kRunGapNs after the one before, no other op between, none
// launching GPU work (a loop over GPU tensors launches kernels: launch-bound's), of at most
// kRunNames op names; a run of at least --storm-ops ops is one call of the loop. Returns each
// run's rows.
std::vector<std::vector<RowId>> LooseRuns(const Context& c, const std::vector<uint8_t>& unplaced,
                                          const std::vector<uint8_t>& launches) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  struct Open {
    std::vector<RowId> rows;
    std::map<model::StringId, size_t> names;
    size_t computing = 0;  // rows that are no bookkeeping (IsBookkeepingOp)
  };
  std::map<model::TrackId, Open> open;  // per thread, the run being read
  std::vector<std::vector<RowId>> runs;
  NameMemo bookkeeping(t, IsBookkeepingOp);
  NamespacedNames namespaced(t, IsNamespaced);
  auto close = [&](Open& o) {
    if (o.computing >= c.o().storm_ops_per_iteration && o.names.size() <= kRunNames)
      runs.push_back(std::move(o.rows));
    o = Open{};
  };
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kOp || !c.In(cpu.start_ns[i]) ||
        InsideFrameworkOp(t, cpu.parent[i], namespaced))
      continue;  // not one the program called
    Open& o = open[cpu.track[i]];
    const bool joins = unplaced[i] && !launches[i];
    if (!o.rows.empty() && (!joins || cpu.start_ns[i] - cpu.end_ns(o.rows.back()) > kRunGapNs))
      close(o);
    if (!joins) continue;
    o.rows.push_back(static_cast<RowId>(i));
    ++o.names[cpu.name[i]];
    o.computing += !bookkeeping(cpu.name[i]);
  }
  for (auto& [track, o] : open) close(o);
  return runs;
}

// Whether each CPU range holds a runtime call (launches GPU work, copies, syncs).
std::vector<uint8_t> LaunchingOps(const Trace& t) {
  std::vector<uint8_t> launches(t.cpu.size(), 0);
  for (size_t i = 0; i < t.api.size(); ++i) {
    for (RowId r = t.api.enclosing_op[i]; r != kNoRow && !launches[r]; r = t.cpu.parent[r])
      launches[r] = 1;
  }
  return launches;
}

// A call's ops: how many, from the first's start to the last's end (the loop inside the frame
// or range; the rest of the call's time is other work, which vectorising keeps).
struct CallOps {
  size_t ops = 0;
  int64_t start = INT64_MAX, end = INT64_MIN;
};

// The tiny ops of one place.
struct Group {
  size_t ops = 0;
  int64_t op_ns = 0;
  // Frame or range instance -> its ops. Ops come in time order, so an instance's ops are mostly
  // in a row: one entry per row of them, merged per instance by MergeCalls once all are read
  // (a map looked up per op, rehashed as it grew, was a fifth of the rule on the 1 GB trace).
  std::vector<std::pair<RowId, CallOps>> calls;
  std::unordered_map<model::StringId, size_t> names;  // op name -> ops
  bool frames = false;
  std::vector<std::pair<RowId, RowId>> runs;  // kLoosePlace: each run's first and last op

  CallOps& Call(RowId instance) {
    if (calls.empty() || calls.back().first != instance) calls.push_back({instance, {}});
    return calls.back().second;
  }
  // One entry per instance, by row.
  void MergeCalls() {
    std::sort(calls.begin(), calls.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t w = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (w > 0 && calls[w - 1].first == calls[i].first) {
        CallOps& into = calls[w - 1].second;
        const CallOps& from = calls[i].second;
        into.ops += from.ops;
        into.start = std::min(into.start, from.start);
        into.end = std::max(into.end, from.end);
      } else {
        calls[w++] = calls[i];
      }
    }
    calls.resize(w);
  }
};

// The fix of a place's calls (each call's loop takes one op's time) and their evidence.
void PriceCalls(const Context& c, Claims& claims, const Group& g, std::string_view key,
                Candidate& cand) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  const bool loose = !g.runs.empty();
  Finding& f = cand.finding;
  // Vectorised: each call's loop (its ops' span) takes one op's time.
  int64_t one_op = g.op_ns / static_cast<int64_t>(g.ops);
  struct Call {
    int64_t d, s;
    model::TrackId track;
  };
  std::vector<Call> calls;  // a frame's or range's instance, or a run of loose ops
  for (const auto& [row, ops] : g.calls) {
    if (row == kNoRow) continue;
    calls.push_back(
        {ops.end - ops.start, ops.start, g.frames ? t.python.track[row] : cpu.track[row]});
  }
  for (auto [first, last] : g.runs)
    calls.push_back(
        {cpu.end_ns(last) - cpu.start_ns[first], cpu.start_ns[first], cpu.track[first]});
  for (const Call& call : calls) {
    if (call.d <= 0) continue;
    double factor = std::min(1.0, static_cast<double>(one_op) / static_cast<double>(call.d));
    cand.fix.host_scale.push_back({call.track, call.s, call.s + call.d, factor});
    claims.Explain(call.s, call.s + call.d);
  }
  cand.fix.what = "vectorised: each call's loop (its ops' span) takes one op's time (" +
                  base::FormatDuration(one_op) + ")";
  // Longest first (ties: the later first).
  std::sort(calls.begin(), calls.end(),
            [](const Call& a, const Call& b) { return std::tie(a.d, a.s) > std::tie(b.d, b.s); });
  for (const Call& call : calls) {
    if (call.d > 0)
      AddEvidence(c, f, call.s, call.d, loose ? "run of ops" : "call of " + std::string(key));
  }
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& cpu = t.cpu;
  std::vector<uint8_t> unplaced(cpu.size(), 0);  // tiny ops with no frame or range to name
  const std::vector<uint8_t> launches = LaunchingOps(t);
  NameMemo bookkeeping(t, IsBookkeepingOp);
  NamespacedNames namespaced(t, IsNamespaced);
  // A place: the innermost Python frame that calls the ops itself (the loop's body, not a
  // model's forward that reaches them through submodules), else the enclosing user range. Read
  // by the place's name id (one name, one id: a frame and a range of one name are one place),
  // then ordered by the name.
  std::unordered_map<model::StringId, Group> by_id;
  Group* last = nullptr;  // the place of the op before
  model::StringId last_place = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kOp || !c.In(cpu.start_ns[i]) ||
        cpu.dur_ns[i] >= c.o().tiny_op_ns)
      continue;
    RowId p = cpu.parent[i];
    // Only ops issued from Python or a user range count, not a framework op's own.
    if (InsideFrameworkOp(t, p, namespaced)) continue;
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
    if (frame == kNoRow && range.empty()) {  // no place to name: maybe a run (LooseRuns)
      unplaced[i] = 1;
      continue;
    }
    // Without a frame, an op launching GPU work (a model phase, a loop over GPU tensors:
    // launch-bound's) or computing nothing (allocations, views, a stream's bookkeeping) is no
    // loop over elements.
    if (frame == kNoRow && (launches[i] || bookkeeping(cpu.name[i]))) continue;
    const model::StringId place = frame != kNoRow ? t.python.name[frame] : cpu.name[p];
    if (last == nullptr || place != last_place) last = &by_id[place], last_place = place;
    Group& g = *last;  // a map's elements stay where they are
    g.frames = frame != kNoRow;
    ++g.ops;
    g.op_ns += cpu.dur_ns[i];
    CallOps& call = g.Call(frame != kNoRow ? frame : p);
    ++call.ops;
    call.start = std::min(call.start, cpu.start_ns[i]);
    call.end = std::max(call.end, cpu.end_ns(i));
    ++g.names[cpu.name[i]];
  }
  std::map<std::string_view, Group> groups;  // by place (a view into the trace's names)
  for (auto& [id, g] : by_id) {
    g.MergeCalls();
    groups.emplace(t.str(id), std::move(g));
  }
  for (const std::vector<RowId>& run : LooseRuns(c, unplaced, launches)) {
    Group& g = groups[kLoosePlace];
    g.runs.emplace_back(run.front(), run.back());
    for (RowId r : run) ++g.ops, g.op_ns += cpu.dur_ns[r], ++g.names[cpu.name[r]];
  }
  for (auto& [key, g] : groups) {
    if (IsModelCode(key)) continue;
    // An optimizer's foreach path issues one multi-tensor op per group of tensors: not a loop.
    size_t foreach_ops = 0;
    for (const auto& [n, k] : g.names)
      foreach_ops += t.str(n).find("_foreach_") != std::string_view::npos ? k : 0;
    if (2 * foreach_ops > g.ops) continue;
    const bool loose = !g.runs.empty();
    double per_call =
        static_cast<double>(g.ops) / static_cast<double>(loose ? g.runs.size() : g.calls.size());
    // A flood per iteration, and from each call of the place (one loop, not many small calls).
    // A user range (no frame) is a loop only where its ops are a loop's body, as a run of loose
    // ops must be: at most kRunNames op names (an annotated model phase, attn(F), or a custom
    // autograd Function's range holds the many ops of a layer).
    if (c.PerIteration(static_cast<double>(g.ops)) < c.o().storm_ops_per_iteration ||
        (!loose && per_call < c.o().storm_ops_per_iteration) ||
        (!g.frames && !loose && g.names.size() > kRunNames))
      continue;
    Candidate cand{Make(c, "cpu-op-storm", 0), {}};
    Finding& f = cand.finding;
    f.where.python = g.frames ? std::string(key) : "";
    std::vector<std::pair<size_t, std::string>> ranked;
    for (auto& [n, k] : g.names) ranked.emplace_back(k, std::string(t.str(n)));
    std::sort(ranked.rbegin(), ranked.rend());
    f.where.op = g.frames || loose ? ranked.front().second : std::string(key);
    std::string mix;
    for (size_t k = 0; k < ranked.size() && k < 4; ++k) {
      mix += (k ? ", " : "") + ranked[k].second + " x" + base::FormatCount(ranked[k].first);
    }
    f.detail = base::Counted(g.ops, "op", "ops") + " < " + base::FormatDuration(c.o().tiny_op_ns) +
               " (" + c.PerIterationText(static_cast<double>(g.ops)) + ", " +
               base::FormatFixed(per_call, 0) + " per call): " + mix;
    PriceCalls(c, claims, g, key, cand);
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace cpu_op_storm_rule

const RuleInfo& CpuOpStormRule() {
  static const RuleInfo rule{
      .id = "cpu-op-storm",
      .title = "A flood of tiny CPU ops from one place per iteration",
      .definition =
          "The innermost Python frame that calls framework ops itself (the loop body, not a "
          "model's forward reaching them through submodules; not the script's top level or a frame "
          "spanning whole iterations) issues more than the threshold of ops per iteration and per "
          "call, each shorter than --tiny-op-us: the per-element Python loop (select / item / mul "
          "/ gt ...). Without Python stacks, a user annotation issuing the threshold per "
          "iteration and per call whose ops are a loop's body (at most 4 op names, none launching "
          "GPU "
          "work, none mere bookkeeping - allocations, views, record_stream: not an annotated model "
          "phase such as attn(F) or dispatch(F), nor a custom autograd Function), "
          "else a run of such ops between the step's framework ops (each at most 20 us "
          "after the one before, no other op between, none launching GPU work, of at most 4 op "
          "names, at least the threshold in one run, not counting bookkeeping ops). Only ops "
          "called from Python or a user range "
          "count, not the child ops a framework op (namespaced: aten::...) runs inside itself. "
          "Fires with or without a GPU. Never fires on model code, whose op flood is the model's "
          "own (fusion, torch.compile or graphs reduce it: launch-bound): a module's forward "
          "(model.py: forward, X.forward, nn.Module: X, torchrec's ## forward:... ##), a compiled "
          "region (CompiledFunction, Torch-Compiled Region), an autograd node (...Backward0, "
          "AccumulateGrad), an optimizer's foreach path (mostly _foreach_ ops), or an optimizer's "
          "zero_grad / step and model.to() (Optimizer.*, torch/optim, torch/nn/modules/module.py: "
          "loops over parameters, not elements; a foreach or fused optimizer is their fix).",
      .impact =
          "replayed: each call's loop - from its first op's start to its last op's end - scaled "
          "down to one op's time (a vectorised version); the call's other work and the GPU work it "
          "launches are kept. Saves only while that host time is on the critical path.",
      .advice =
          "Vectorise the loop: one tensor expression (torch.where, masks, broadcasting) instead of "
          "a Python loop over elements; or torch.compile the function.",
      .options = {{"--storm-ops",
                   "cpu-op-storm: tiny ops per iteration and per call from one place", 50,
                   [](AnalyzeOptions& o, double v) { o.storm_ops_per_iteration = v; }},
                  {"--tiny-op-us", "cpu-op-storm: ops shorter than this (us)", 50,
                   [](AnalyzeOptions& o, double v) {
                     o.tiny_op_ns = static_cast<int64_t>(v * 1e3);
                   }}},
      .detect = &cpu_op_storm_rule::Detect,
      .limits =
          "model code (a module's forward, a compiled region, an autograd node, an optimizer, "
          "model.to()); without stacks, a user range of more than 4 op names or fewer ops per "
          "call than the threshold, and ops launching GPU work; ops a framework op runs inside "
          "itself; ops at least --tiny-op-us long; "
          "without stacks, ops of more than 4 names in a run (a model's forward) or each launching "
          "GPU work (a loop over GPU tensors: launch-bound)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
