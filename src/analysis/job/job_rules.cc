#include "analysis/job/job_rules.h"

#include "analysis/job/job_rule.h"

namespace gpuscope::analysis {

namespace job_internal {

const std::vector<const JobRuleEntry*>& JobRuleEntries() {
  static const std::vector<const JobRuleEntry*> rules = {&RankStragglerRule(),
                                                         &CollectiveSkewRule(), &CommExposedRule()};
  return rules;
}

}  // namespace job_internal

const std::vector<RuleInfo>& JobRules() {
  static const std::vector<RuleInfo> rules = [] {
    std::vector<RuleInfo> out;
    for (const auto* r : job_internal::JobRuleEntries()) out.push_back(r->info);
    return out;
  }();
  return rules;
}

}  // namespace gpuscope::analysis
