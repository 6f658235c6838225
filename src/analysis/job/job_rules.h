#pragma once
// The findings of a distributed job (`gpuscope analyze DIR`), as registry entries like the
// single-trace rules (analysis/findings/registry.h): id, title, definition, how the fix is priced,
// advice. `gpuscope help findings` and docs/findings.md list them from here; job.cc takes its
// advice from here, so each text is written once.

#include <string_view>
#include <vector>

#include "analysis/findings/registry.h"

namespace gpuscope::analysis {

inline constexpr std::string_view kRuleStraggler = "rank-straggler";
inline constexpr std::string_view kRuleCollectiveSkew = "collective-skew";
inline constexpr std::string_view kRuleCommExposed = "comm-exposed";

// The job rules (detect is null: AnalyzeJob finds them); in the order they are listed.
const std::vector<RuleInfo>& JobRules();
const RuleInfo& JobRule(std::string_view id);

}  // namespace gpuscope::analysis
