#include "analysis/findings/analyze.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "analysis/common/copies.h"
#include "analysis/findings/context.h"
#include "analysis/findings/graph_builder.h"
#include "analysis/findings/place_advice.h"
#include "analysis/findings/pricing.h"
#include "analysis/findings/registry.h"
#include "analysis/findings/unsupported.h"
#include "analysis/findings/verdict.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/timeline/recording_notes.h"
#include "base/stage_timer.h"
#include "base/text.h"

namespace gpuscope::analysis {

using namespace internal;  // NOLINT: the context and rule checks this file runs

namespace {

// Whether the tracer recorded the host side's pinning of the window's copies.
std::string HostPinning(const Context& c) {
  size_t unknown = 0;
  for (size_t m : c.WindowCopies()) {
    model::MemoryKind host = HostMemory(c.t(), m);
    unknown += HostSide(c.t().memops.kind[m]) &&
               (host == model::MemoryKind::kHost || host == model::MemoryKind::kUnknown);
  }
  return unknown ? base::FormatCount(unknown) +
                       " host<->device copies with pinning not recorded by the tool (unknown)"
                 : "known";
}

// The GPUs' idle time by cause (the cause's kind, before its ':'), largest first.
std::vector<IdleCause> IdleCauses(const Context& c) {
  std::map<std::string_view, IdleCause> idle;  // views into the Context's causes
  for (const auto& g : c.gaps()) {
    std::string_view cause = c.Text(g.cause);
    std::string_view kind = cause.substr(0, cause.find(':'));
    IdleCause& ic = idle[kind];
    if (ic.cause.empty()) ic.cause = std::string(kind);
    ic.ns += g.end - g.start;
    ++ic.gaps;
  }
  std::vector<IdleCause> out;
  for (auto& [k, v] : idle) out.push_back(v);
  std::sort(out.begin(), out.end(),
            [](const IdleCause& a, const IdleCause& b) { return a.ns > b.ns; });
  return out;
}

// A trace of several phases analysed whole: its steady steps, cut from the window's replays
// (none: one phase, or one phase asked for).
std::optional<PhaseCut> CutOfPhases(const SteadyState& s, size_t phases) {
  if (phases < 2) return std::nullopt;
  PhaseCut cut;
  cut.phases = phases;
  for (size_t i = s.warmup; i < s.iterations.size(); ++i) {
    cut.steps.emplace_back(s.iterations[i].start_ns, s.iterations[i].end_ns());
    cut.step_phase.push_back(s.iterations[i].phase);
  }
  return cut;
}

// Each phase's findings: what the run's fixes save in its steps, largest first; kept as the
// window's are (at least the minimum impact, here of the phase's time).
void PhaseFindings(const std::vector<Candidate>& cands, const Pricing& priced,
                   const AnalyzeOptions& o, std::vector<PhaseSummary>& phases) {
  for (size_t i = 0; i < cands.size() && i < priced.phase_impact_ns.size(); ++i) {
    const Finding& f = cands[i].finding;
    if (f.severity == Severity::kInfo || cands[i].fix.empty()) continue;
    for (size_t ph = 0; ph < phases.size() && ph < priced.phase_ns.size(); ++ph) {
      const int64_t ns = priced.phase_impact_ns[i][ph];
      const double pct = priced.phase_ns[ph] > 0 ? 100.0 * static_cast<double>(ns) /
                                                       static_cast<double>(priced.phase_ns[ph])
                                                 : 0;
      if (ns > 0 && pct >= o.min_impact_percent) phases[ph].findings.push_back({f.rule, ns, pct});
    }
  }
  for (auto& p : phases)
    std::stable_sort(p.findings.begin(), p.findings.end(),
                     [](const auto& a, const auto& b) { return a.impact_ns > b.impact_ns; });
}

// The rules' claim-free work (RuleInfo::prepare), last rule first: the rules run first to last
// meanwhile, so the two threads meet in the middle, each waiting at most for the one preparation
// that both reach at once.
void PrepareRules(const Context& c) {
  const auto& rules = Rules();
  for (auto rule = rules.rbegin(); rule != rules.rend(); ++rule)
    if (rule->prepare) rule->prepare(c);
}

}  // namespace

namespace {

// The window's totals: its span, kernel, copy and API time (its GPU time by kernel category is
// one of the WindowNotes).
void MeasureWindow(const Trace& t, const Context& c, int64_t wall_ns, AnalysisReport& r) {
  auto& s = r.summary;
  s.wall_ns = wall_ns;
  s.window_ns = c.window();
  s.devices = c.devices();
  // GPU work that ran during a one-time cost (queued before it) is the steady part's, as the
  // busy share counts it (Context: only the GPU's idle time in one-time costs is left out).
  auto in = [&](int64_t ts) { return ts >= r.steady.start_ns && ts < r.steady.end_ns; };
  for (size_t i = 0; i < t.kernels.size(); ++i)
    s.kernel_ns += in(t.kernels.start_ns[i]) ? t.kernels.dur_ns[i] : 0;
  for (size_t i = 0; i < t.memops.size(); ++i)
    s.memcpy_ns += in(t.memops.start_ns[i]) ? t.memops.dur_ns[i] : 0;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.api.domain[i] != model::ApiDomain::kOs && c.In(t.api.start_ns[i]))
      s.api_ns += t.api.dur_ns[i];
  }
}

// What the context's window holds and costs: the summary, the rules' findings in registry order
// priced by the replay, sorted for the report. r.steady is the context's window.
void AnalyzeWindow(const Trace& t, const AnalyzeOptions& o, Context& c, int64_t wall_ns,
                   GraphBuilder& graph_builder, AnalysisReport& r) {
  auto& s = r.summary;
  MeasureWindow(t, c, wall_ns, r);
  base::StageTimer timer;
  ClassifyGaps(c);
  timer.Lap("analyze: idle gaps classified");
  s.idle = IdleCauses(c);
  if (c.devices() > 0) {
    s.gpu_busy_pct =
        100.0 * static_cast<double>(c.busy_ns()) / (static_cast<double>(c.window()) * c.devices());
  }
  double dispatch_pct = 0;
  for (const auto& ic : s.idle) {
    if (ic.cause == kDispatchGapCause && c.devices() > 0 && c.window() > 0)
      dispatch_pct =
          100.0 * static_cast<double>(ic.ns) / (static_cast<double>(c.window()) * c.devices());
  }
  RunVerdict verdict = Verdict(t, {c.devices(), s.gpu_busy_pct, s.kernel_ns, r.steady.start_ns,
                                   r.steady.end_ns, dispatch_pct, r.steady.steady_count()});
  s.verdict_kind = verdict.kind;
  s.verdict = std::move(verdict.text);
  // The steady part's waits: a wait for GPU work the trace does not hold at the recording's start
  // (SGLang's 463 ms copy behind a stream wait) is one-time, left out as the verdict leaves it.
  for (const auto& [a, b] : MeasureHostWaits(t, r.steady.start_ns, r.steady.end_ns).waits)
    s.host_wait_ns += (b - a) - r.steady.one_time.Within(a, b);
  s.gpu_work_ns = c.busy_ns();
  // Rules in registry order, specific root causes first: each leaves out the events an
  // earlier one claimed.
  Claims claims(t);
  std::vector<Candidate> cands;
  timer.Lap("analyze: verdict");
  // The rules' preparations read the context: the second core is done with them before it goes.
  JoinOnExit prepared_before_context_goes(graph_builder);
  graph_builder.After([&c] {
    base::StageTimer prepared;
    PrepareRules(c);
    prepared.Lap("analyze: the rules' claim-free work (beside the rules)");
  });
  for (const auto& rule : Rules()) {
    rule.detect(c, claims, cands);
    if (timer.on()) timer.Lap(("rule " + std::string(rule.id)).c_str());
  }
  AdviseByPlace(c, cands);
  s.host_pinning = HostPinning(c);
  // The critical path first (made with the graph): pricing starts from the same unchanged replay.
  ReplayGraph* graph = graph_builder.Get();
  ReplayResult& observed = graph_builder.observed();
  r.health = std::move(graph_builder.notes().health);
  r.phases = std::move(graph_builder.notes().phases);
  r.clocks = std::move(graph_builder.notes().clocks);
  s.categories = std::move(graph_builder.notes().categories);
  CaptureNote(r.graphs, r.health);
  IncompleteVerdict(r.health, s);
  timer.Lap("analyze: replay graph, critical path and notes");
  // Several phases: priced in each phase's steps by the same replays.
  const std::optional<PhaseCut> cut =
      o.steady.phase.empty() ? CutOfPhases(r.steady, r.phases.size()) : std::nullopt;
  if (cut) graph->SetSteps(cut->steps);
  UnpriceImpossible(t, r.health, cands);
  UnpriceOnePassIdle(s, cands);
  Pricing priced = PriceFindings(c, *graph, cands, cut ? &*cut : nullptr);
  if (cut) PhaseFindings(cands, priced, o, r.phases);
  timer.Lap("analyze: findings priced");
  s.observed_ns = graph->observed_window_ns();
  s.replayed_ns = priced.as_run_ns;  // as it ran, to compare with the observed window
  s.replay_error_percent =
      s.observed_ns > 0 ? 100.0 * std::abs(static_cast<double>(s.replayed_ns - s.observed_ns)) /
                              static_cast<double>(s.observed_ns)
                        : 0;
  s.inferred_waits = graph->inferred_waits() + graph->inferred_polls();
  s.inferred_polls = graph->inferred_polls();
  s.inferred_stream_waits = graph->inferred_stream_waits();
  s.recorded_stream_waits = graph->recorded_stream_waits();
  s.combined_ns = priced.combined_ns;
  // warm-up's saving too, not the recording's parts (no fix saves a wait for unseen work)
  s.combined_saving_ns = std::max<int64_t>(0, priced.program_run_ns - priced.combined_ns);
  s.critical_path = std::move(observed.path);
  s.critical_places = std::move(observed.top_places);
  std::vector<Finding> f;
  for (auto& cand : cands) f.push_back(std::move(cand.finding));
  for (auto& x : f) {
    const bool always = ListedWhateverItSaves(x);
    // Kept when its fix saves something alone, even if the larger fixes before it leave it
    // nothing to add (its impact is then 0: the time is theirs).
    if (always ||
        std::max(x.impact_percent, priced.Percent(x.standalone_ns)) >= o.min_impact_percent)
      r.findings.push_back(std::move(x));
    else
      r.under_threshold.push_back(std::move(x));
  }
  RankFindings(r.findings);
}

// Each place's caller (Where::caller): the user frame that calls its Python frame most often.
void NameCallers(const Attributor& at, AnalysisReport& r) {
  std::vector<std::string> names;
  for (const auto& f : r.findings) names.push_back(f.where.python);
  for (const auto& s : r.stalls) names.push_back(s.where.python);
  std::vector<std::string> callers = at.Callers(names);
  size_t k = 0;
  for (auto& f : r.findings) f.where.caller = std::move(callers[k++]);
  for (auto& s : r.stalls) s.where.caller = std::move(callers[k++]);
}

}  // namespace

WhatIf FixOf(const Trace& t, const AnalyzeOptions& o, const SteadyState& steps,
             const std::vector<std::string>& rules) {
  Context c(t, o, ChooseWindow(t, steps, o.steady));
  ClassifyGaps(c);
  Claims claims(t);
  std::vector<Candidate> cands;
  for (const auto& r : Rules()) r.detect(c, claims, cands);
  WhatIf all;
  for (const auto& cand : cands) {
    bool asked = std::find(rules.begin(), rules.end(), cand.finding.rule) != rules.end();
    if (asked && !cand.fix.empty()) all.Merge(cand.fix);
  }
  return all;
}

AnalysisReport Analyze(const Trace& t, const AnalyzeOptions& o) {
  return Analyze(t, o, FindSteps(t, o.steady));
}

AnalysisReport Analyze(const Trace& t, const AnalyzeOptions& o, const SteadyState& steps) {
  // One window, one replay graph: a trace's phases are priced by cutting the window's replays
  // at their steps (AnalyzeWindow), not analysed again each.
  const auto [lo, hi] = t.TimeSpan();
  const int64_t wall_ns = hi - lo;
  AnalysisReport r;
  base::StageTimer timer;
  // The window sought, then the graph built, beside the context's attribution.
  GraphBuilder graph_builder(
      t, [&t, &steps, &o] { return ChooseWindow(t, steps, o.steady); },
      o.categories ? *o.categories : *BuiltInCategoryRules(),
      o.threads != 1 && std::thread::hardware_concurrency() > 1);
  Context c(t, o, [&graph_builder] { return graph_builder.Window(); });
  timer.Lap("analyze: window and context (attribution), side by side");
  r.steady = c.steady();
  r.graphs = c.graphs();
  // Stalls worth a line: at least the gpu-idle gap and 1% of the trace's span.
  r.stalls = FindStalls(t, c.at(), r.steady.start_ns, r.steady.end_ns, o.stalls,
                        std::max<int64_t>(o.idle_gap_ns, wall_ns / 100), r.steady.one_time);
  timer.Lap("analyze: stalls");
  AnalyzeWindow(t, o, c, wall_ns, graph_builder, r);
  NameCallers(c.at(), r);
  return r;
}

}  // namespace gpuscope::analysis
