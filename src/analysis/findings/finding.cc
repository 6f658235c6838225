#include "analysis/findings/finding.h"

#include <algorithm>

#include "analysis/findings/registry.h"

namespace gpuscope::analysis {

Severity SeverityFor(double pct) {
  if (pct >= 10) return Severity::kHigh;
  if (pct >= 3) return Severity::kMedium;
  return Severity::kLow;
}

std::string_view SeverityName(Severity s) {
  static constexpr std::string_view kNames[] = {"high", "medium", "low", "info"};
  return kNames[static_cast<size_t>(s)];
}

// By what fixing each problem alone saves (a user fixes one at a time), the summaries and pure
// information after the measured costs; then each finding names the ones priced before it (its
// impact is what it adds on top of them).
void RankFindings(std::vector<Finding>& findings) {
  auto rank = [](const Finding& x) {
    if (x.severity == Severity::kInfo) return 2;
    const RuleInfo* rule = FindRule(x.rule);
    return rule && rule->listing == RuleInfo::Listing::kSummary ? 1 : 0;
  };
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.standalone_ns > b.standalone_ns;
  });
  NamePricedBefore(findings);
}

void NamePricedBefore(std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    f.priced_after.clear();
    for (size_t j = 0; j < findings.size() && f.price_order >= 0; ++j) {
      const int o = findings[j].price_order;
      if (o >= 0 && o < f.price_order) f.priced_after.push_back(static_cast<int>(j + 1));
    }
  }
}

}  // namespace gpuscope::analysis
