#include "analysis/findings/pricing.h"

#include <algorithm>

#include "analysis/findings/price_in_order.h"
#include "analysis/findings/registry.h"
#include "base/parallel.h"

namespace gpuscope::analysis::internal {

namespace {

// Per phase, its steps' replayed time from one replay's steps (empty: the replay failed).
std::vector<int64_t> PhaseTimes(const PhaseCut& cut, const std::vector<int64_t>& steps) {
  if (steps.size() != 2 * cut.step_phase.size()) return {};
  std::vector<int64_t> out(cut.phases, 0);
  for (size_t k = 0; k < cut.step_phase.size(); ++k)
    if (cut.step_phase[k] >= 0)
      out[static_cast<size_t>(cut.step_phase[k])] += steps[2 * k + 1] - steps[2 * k];
  return out;
}

// The phases' savings of each counted fix, in PriceInOrder's order, from the steps of every
// replay it made (`calls`: the candidates alone, then the combinations in order).
void PricePhases(const PhaseCut& cut, const std::vector<int64_t>& baseline_steps,
                 const PriceResult& r, const std::vector<std::vector<int64_t>>& calls, Pricing& p) {
  const size_t n = r.standalone_ns.size();
  p.phase_ns = PhaseTimes(cut, baseline_steps);
  p.phase_impact_ns.assign(n, std::vector<int64_t>(cut.phases, 0));
  if (p.phase_ns.empty() || calls.size() < n) return;
  const bool combined = calls.size() == n + r.order.size();
  std::vector<int64_t> window = p.phase_ns;  // per phase, with the fixes added so far
  for (size_t k = 0; k < r.order.size(); ++k) {
    const size_t i = r.order[k];
    const std::vector<int64_t> alone = PhaseTimes(cut, calls[i]);
    // The first combination is the first fix alone (PriceInOrder replays it once).
    const std::vector<int64_t> with = combined && k > 0 ? PhaseTimes(cut, calls[n + k]) : alone;
    for (size_t ph = 0; ph < cut.phases; ++ph) {
      const int64_t saves_alone =
          alone.empty() ? 0 : std::max<int64_t>(0, p.phase_ns[ph] - alone[ph]);
      const int64_t w = with.empty() ? window[ph] : with[ph];
      p.phase_impact_ns[i][ph] = std::clamp<int64_t>(window[ph] - w, 0, saves_alone);
      window[ph] = std::min(window[ph], w);
    }
  }
}

// The warm-up finding: what the one-time costs add to the window as it ran, a share of it.
void PriceOneTime(const Pricing& p, Candidate& cand) {
  Finding& f = cand.finding;
  const int64_t saves = std::max<int64_t>(0, p.as_run_ns - p.baseline_ns);
  f.impact_ns = f.standalone_ns = saves;
  f.impact_percent = f.standalone_percent =
      100.0 * static_cast<double>(saves) / static_cast<double>(std::max<int64_t>(1, p.as_run_ns));
  f.severity = SeverityFor(f.impact_percent);
  f.baseline_ns = p.as_run_ns;
  f.fixed_ns = p.baseline_ns;
  f.changes = cand.fix.Describe();
  f.edits_remove_ns = saves;
  f.fix = cand.fix.what + "; replayed window " + base::FormatDuration(p.as_run_ns) + " -> " +
          base::FormatDuration(p.baseline_ns) + " (the steady part, every other finding's window)";
}

}  // namespace

Pricing PriceFindings(const Context& c, const ReplayGraph& graph, std::vector<Candidate>& cands,
                      const PhaseCut* cut) {
  Pricing p;
  // The window's steady part: the one-time costs done before it (the baseline of every fix but
  // warm-up's, which is priced on the window as it ran).
  WhatIf one_time = c.OneTimeFix();
  one_time.SortHostSpans();
  const WhatIf* base = one_time.empty() ? nullptr : &one_time;
  p.as_run_ns = base ? graph.Replay(nullptr).window_ns : 0;
  const ReplayResult unchanged = graph.Replay(base);
  p.baseline_ns = unchanged.window_ns;
  if (!base) p.as_run_ns = p.baseline_ns;
  const WhatIf recording = c.OneTimeFix(false, true);
  p.program_run_ns = recording.empty() ? p.as_run_ns : graph.Replay(&recording).window_ns;
  p.percent_of_ns = std::max(p.baseline_ns, c.window());
  for (Candidate& cand : cands) cand.fix.SortHostSpans();  // once, not at each replay
  std::vector<PriceCandidate<WhatIf>> in(cands.size());
  std::vector<WhatIf> with_base(base ? cands.size() : 0);  // each fix on top of the baseline's
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].fix.empty()) continue;
    in[i].fix = &cands[i].fix;
    if (base) {
      with_base[i] = one_time;
      with_base[i].Merge(cands[i].fix);
      in[i].fix = &with_base[i];
      in[i].adds = &cands[i].fix;  // the combinations start from the one-time costs' fix
    }
  }
  // What each fix's edits remove, on the unchanged replay as it ran. On top of the one-time
  // costs' fix, a fix saves what both save less what they save: at most what both remove less
  // what the one-time costs save (the bound for the saving on the baseline).
  std::vector<const WhatIf*> fixes(cands.size(), nullptr);
  for (size_t i = 0; i < cands.size(); ++i) fixes[i] = in[i].fix;
  // The fixes shared among threads, in EditsRemoveNs as in the replays below: up to --threads
  // (default: the cores, at most 8).
  const int threads = base::ThreadsFor(c.o().threads);
  std::vector<int64_t> removes = graph.EditsRemoveNs(fixes, threads);
  for (int64_t& r : removes)
    if (base) r = std::max<int64_t>(0, r - (p.as_run_ns - p.baseline_ns));
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].fix.empty()) continue;
    // A catch-all (gpu-idle: the host work no other rule explains) is priced last, on what the
    // others leave.
    const RuleInfo* rule = FindRule(cands[i].finding.rule);
    in[i].tier = rule && rule->listing == RuleInfo::Listing::kCatchAll ? 1 : 0;
    // A fix that cannot save --min-impact, of a finding listed only when it does, is not
    // replayed (saves 0 here): no fix saves more than its edits remove (in a schedule of maxima
    // and sums; checked on every sample), and half of that is a margin for one where it would.
    if (!ListedWhateverItSaves(cands[i].finding) &&
        p.Percent(2 * removes[i]) < c.o().min_impact_percent)
      in[i].fix = nullptr;
  }
  // The fixes replayed side by side, one thread each.
  std::vector<std::vector<int64_t>> steps;  // per replay made, in PriceInOrder's order
  const PriceResult r = PriceInOrder(
      p.baseline_ns, in, base ? one_time : WhatIf{},
      [&](const std::vector<const WhatIf*>& batch) {
        if (!cut) return graph.ReplayWindows(batch, threads);
        std::vector<std::vector<int64_t>> batch_steps;
        std::vector<int64_t> windows = graph.ReplayWindows(batch, threads, &batch_steps);
        for (auto& m : batch_steps) steps.push_back(std::move(m));
        return windows;
      },
      [](WhatIf& all, const WhatIf& fix) { all.Merge(fix); },
      [&](int64_t alone) { return p.Percent(alone) >= c.o().min_impact_percent; });
  const std::vector<int64_t>& alone = r.standalone_ns;
  const std::vector<int64_t>& impact = r.impact_ns;
  p.combined_ns = r.combined_ns;
  if (cut) PricePhases(*cut, unchanged.steps_ns, r, steps, p);
  for (size_t k = 0; k < r.order.size(); ++k)
    cands[r.order[k]].finding.price_order = static_cast<int>(k);
  for (size_t i = 0; i < cands.size(); ++i) {
    Finding& f = cands[i].finding;
    // What has no fix to price (information, summaries, a fix on impossible times) is info.
    if (f.severity == Severity::kInfo || cands[i].fix.empty()) {
      f.severity = Severity::kInfo;
      continue;
    }
    if (f.rule == "warm-up") {
      PriceOneTime(p, cands[i]);
      continue;
    }
    f.impact_ns = impact[i];
    f.impact_percent = p.Percent(impact[i]);
    // Graded by what fixing this problem alone saves, not by what the fixes before it leave.
    f.standalone_percent = p.Percent(alone[i]);
    f.severity = SeverityFor(f.standalone_percent);
    f.standalone_ns = alone[i];
    f.baseline_ns = p.baseline_ns;
    f.fixed_ns = p.baseline_ns - alone[i];
    f.changes = cands[i].fix.Describe();
    f.edits_remove_ns = removes[i];
    f.fix = cands[i].fix.what + "; replayed window " + base::FormatDuration(p.baseline_ns) +
            " -> " + base::FormatDuration(p.baseline_ns - alone[i]) + " with this fix alone" +
            (impact[i] != alone[i]
                 ? ", " + base::FormatDuration(impact[i]) + " on top of the fixes ranked before it"
                 : "");
  }
  return p;
}

}  // namespace gpuscope::analysis::internal
