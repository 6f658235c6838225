#include "analysis/findings/pricing.h"

#include <algorithm>
#include <numeric>

#include "analysis/findings/registry.h"

namespace gpuscope::analysis::internal {

Pricing PriceFindings(const Context& c, const ReplayGraph& graph, std::vector<Candidate>& cands) {
  Pricing p;
  p.baseline_ns = graph.Replay(nullptr).window_ns;
  p.percent_of_ns = std::max(p.baseline_ns, c.window());
  std::vector<int64_t> alone(cands.size(), 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].fix.empty()) continue;
    alone[i] = std::max<int64_t>(0, p.baseline_ns - graph.Replay(&cands[i].fix).window_ns);
    // Below the reporting threshold alone, a fix is noise: it is left out of the combination
    // so that the reported impacts add up to the combined saving exactly.
    if (alone[i] > 0 && p.Percent(alone[i]) >= c.o().min_impact_percent) order.push_back(i);
  }
  // Root causes first, by their own saving; gpu-idle (the host work no other rule explains) is
  // priced last, on what the others leave.
  auto tier = [&](size_t i) { return cands[i].finding.rule == "gpu-idle" ? 1 : 0; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    return alone[a] > alone[b];
  });
  WhatIf all;
  int64_t window = p.baseline_ns;
  std::vector<int64_t> impact(cands.size(), 0);
  for (size_t i : order) {
    all.Merge(cands[i].fix);
    int64_t w = order.size() == 1 ? p.baseline_ns - alone[i] : graph.Replay(&all).window_ns;
    // What it adds, but never more than it saves alone: the extra that fixes unlock together
    // (synergy) belongs to no single one of them and stays in the combined saving only.
    impact[i] = std::clamp<int64_t>(window - w, 0, alone[i]);
    window = std::min(window, w);
  }
  p.combined_ns = window;
  for (size_t i = 0; i < cands.size(); ++i) {
    Finding& f = cands[i].finding;
    // Information and summaries (no fix to price) keep the severity their rule gave them.
    if (f.severity == Severity::kInfo || cands[i].fix.empty()) continue;
    f.impact_ns = impact[i];
    f.impact_percent = p.Percent(impact[i]);
    f.severity = SeverityFor(f.impact_percent);
    f.standalone_ns = alone[i];
    f.baseline_ns = p.baseline_ns;
    f.fixed_ns = p.baseline_ns - alone[i];
    f.changes = cands[i].fix.Describe();
    f.fix = cands[i].fix.what + "; replayed window " + base::FormatDuration(p.baseline_ns) +
            " -> " + base::FormatDuration(p.baseline_ns - alone[i]) + " with this fix alone" +
            (impact[i] != alone[i]
                 ? ", " + base::FormatDuration(impact[i]) + " on top of the fixes ranked before it"
                 : "");
  }
  return p;
}

}  // namespace gpuscope::analysis::internal
