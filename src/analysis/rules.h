#pragma once
// The finding rules of `gpuscope analyze`: one table that the analyzer, `gpuscope help
// findings` and docs/findings.md all read, so that ids, definitions, defaults and advice are
// written once. Rule ids are a contract (JSON consumers key on them).

#include <string_view>
#include <vector>

namespace gpuscope::analysis {

struct RuleInfo {
  std::string_view id;
  std::string_view title;
  std::string_view definition;  // what fires it, exactly
  std::string_view defaults;    // the thresholds, with the options that change them
  std::string_view impact;      // how impact_ns is computed
  std::string_view advice;      // the fix
};

const std::vector<RuleInfo>& Rules();
const RuleInfo* FindRule(std::string_view id);

// Severity from impact: >= 10% of the steady window high, >= 3% medium, else low.
std::string_view SeverityFor(double impact_percent);

}  // namespace gpuscope::analysis
