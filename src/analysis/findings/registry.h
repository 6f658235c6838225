#pragma once
// The finding rules of `gpuscope analyze`, as a registry: each rule is one file in rules/ with one
// entry - its id, help texts, options with their defaults, and the check that detects it and
// supplies its fix. The analyzer runs them in registry order; the CLI flags, AnalyzeOptions'
// defaults, `gpuscope help findings` and docs/findings.md all come from these entries, so each
// is written once. Rule ids are a contract (JSON consumers key on them).

#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/ecosystem.h"
#include "analysis/findings/finding.h"

namespace gpuscope::model {
class Trace;
}

namespace gpuscope::analysis {

// The rule's advice for that program: `advice` for framework code; `runtime_advice` (when the
// rule has one) for plain CUDA programs, and in HIP's words (hipHostMalloc, rocBLAS, HIP graph)
// for HIP programs.
std::string AdviceFor(const RuleInfo& rule, const Ecosystem& e);

// Every rule, in the order analyze runs them (specific root causes first, the catch-alls last).
const std::vector<RuleInfo>& Rules();
const RuleInfo* FindRule(std::string_view id);

// Whether a finding is listed whatever its fix saves: information, a rule's summary or a rule
// always listed. Any other is listed when its fix alone saves --min-impact.
bool ListedWhateverItSaves(const Finding& f);

}  // namespace gpuscope::analysis
