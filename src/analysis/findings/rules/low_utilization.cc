// low-utilization: the GPU busy less than the threshold share of the steady window (a summary:
// the recoverable part is priced by the other rules).

#include <algorithm>
#include <map>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace low_utilization_rule {
namespace {

void Detect(const Context& c, Claims&, std::vector<Candidate>& out) {
  if (c.devices() == 0) return;
  double busy =
      100.0 * static_cast<double>(c.busy_ns()) / (static_cast<double>(c.window()) * c.devices());
  if (busy >= 100 * c.o().low_utilization) return;
  std::map<std::string_view, int64_t> idle;  // views into the Context's causes
  for (const auto& g : c.gaps()) {
    std::string_view cause = c.Text(g.cause);
    idle[cause.substr(0, cause.find(':'))] += g.end - g.start;
  }
  std::vector<std::pair<int64_t, std::string_view>> ranked;
  for (auto& [cause, ns] : idle) ranked.emplace_back(ns, cause);
  std::sort(ranked.rbegin(), ranked.rend());
  Candidate cand{Make(c, "low-utilization", 0), {}};
  Finding& f = cand.finding;
  f.severity = busy < 25 ? Severity::kHigh : Severity::kMedium;
  f.detail = "GPU busy " + base::FormatFixed(busy, 1) + "% of the steady window; idle by cause:";
  for (size_t k = 0; k < ranked.size() && k < 4; ++k) {
    f.detail += (k ? ", " : " ") + std::string(ranked[k].second) + " " +
                base::FormatFixed(c.Percent(ranked[k].first) / c.devices(), 1) + "%";
  }
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace low_utilization_rule

const RuleInfo& LowUtilizationRule() {
  static const RuleInfo rule{
      .id = "low-utilization",
      .title = "Low GPU utilization in the steady state",
      .definition =
          "The share of the steady window during which each GPU runs work (kernels or copies, "
          "streams merged) is below the threshold; the idle time is split by cause as in gpu-idle.",
      .impact = "0 (the recoverable part is reported by gpu-idle and the other rules).",
      .advice =
          "Find what the host does while the GPU waits (the idle split, gpu-idle, host-sync, "
          "cpu-op-storm) and overlap it with GPU work; batch more work per launch.",
      .options = {{"--low-utilization-percent", "low-utilization: GPU busy share below this", 50,
                   [](AnalyzeOptions& o, double v) { o.low_utilization = v / 100; }}},
      .detect = &low_utilization_rule::Detect,
      .listing = RuleInfo::Listing::kSummary,
      .runtime_advice =
          "Find what the host does while the GPU waits (the idle split, gpu-idle, host-sync) and "
          "overlap it with GPU work: more streams, async copies, more work per launch.",
      .limits =
          "GPUs busy at or above the threshold share of the steady window. Information only "
          "in a one-pass window (verdict 'one pass'): one-off work has no steady state."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
