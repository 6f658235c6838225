#pragma once
// The findings of a distributed job (`gpuscope analyze DIR`), as registry entries like the
// single-trace rules (analysis/findings/finding.h's RuleInfo): one file each in job/rules/, with
// its texts and its check (job_rule.h). `gpuscope help findings` and docs/findings.md list them
// from here, so each text is written once.

#include <string_view>
#include <vector>

#include "analysis/findings/finding.h"

namespace gpuscope::analysis {

inline constexpr std::string_view kRuleStraggler = "rank-straggler";
inline constexpr std::string_view kRuleCollectiveSkew = "collective-skew";
inline constexpr std::string_view kRuleCommExposed = "comm-exposed";

// The job rules' entries, in the order they are listed (their checks: job_rule.h).
const std::vector<RuleInfo>& JobRules();

}  // namespace gpuscope::analysis
