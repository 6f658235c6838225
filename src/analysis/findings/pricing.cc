#include "analysis/findings/pricing.h"

#include <algorithm>
#include <thread>

#include "analysis/findings/price_in_order.h"
#include "analysis/findings/registry.h"

namespace gpuscope::analysis::internal {

Pricing PriceFindings(const Context& c, const ReplayGraph& graph, std::vector<Candidate>& cands) {
  Pricing p;
  p.baseline_ns = graph.Replay(nullptr).window_ns;
  // What each fix's edits remove, on the unchanged replay just made (before the fixes' replays).
  std::vector<const WhatIf*> fixes(cands.size(), nullptr);
  for (size_t i = 0; i < cands.size(); ++i)
    if (!cands[i].fix.empty()) fixes[i] = &cands[i].fix;
  const std::vector<int64_t> removes = graph.EditsRemoveNs(fixes);
  p.percent_of_ns = std::max(p.baseline_ns, c.window());
  std::vector<PriceCandidate<WhatIf>> in(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].fix.empty()) continue;
    in[i].fix = &cands[i].fix;
    // A catch-all (gpu-idle: the host work no other rule explains) is priced last, on what the
    // others leave.
    const RuleInfo* rule = FindRule(cands[i].finding.rule);
    in[i].tier = rule && rule->listing == RuleInfo::Listing::kCatchAll ? 1 : 0;
  }
  // The fixes replayed side by side, one thread each up to --threads (default: the cores, at
  // most 8).
  const int threads =
      c.o().threads > 0 ? c.o().threads
                        : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  const PriceResult r = PriceInOrder(
      p.baseline_ns, in, WhatIf{},
      [&](const std::vector<const WhatIf*>& batch) { return graph.ReplayWindows(batch, threads); },
      [](WhatIf& all, const WhatIf& fix) { all.Merge(fix); },
      [&](int64_t alone) { return p.Percent(alone) >= c.o().min_impact_percent; });
  const std::vector<int64_t>& alone = r.standalone_ns;
  const std::vector<int64_t>& impact = r.impact_ns;
  p.combined_ns = r.combined_ns;
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
