#include "analysis/rules.h"

#include "analysis/analyze.h"
#include "analysis/rules/rule_checks.h"
#include "base/text.h"

namespace gpuscope::analysis {

const std::vector<RuleInfo>& Rules() {
  using namespace internal;  // NOLINT: the rule entries
  static const std::vector<RuleInfo> rules = {
      HostSyncRule(),       MemcpySyncRule(),       MemcpyPageableRule(), SmallMemcpyRule(),
      MemcpyInLoopRule(),   DataLoadingRule(),      CpuOpStormRule(),     LaunchBoundRule(),
      KernelOutlierRule(),  KernelEfficiencyRule(), KernelHotspotRule(),  GpuIdleRule(),
      LowUtilizationRule(),
  };
  return rules;
}

const RuleInfo* FindRule(std::string_view id) {
  for (const auto& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string RuleInfo::Defaults() const {
  std::string out;
  for (const auto& o : options) {
    if (!out.empty()) out += ", ";
    out += std::string(o.flag);
    out += ' ';
    out += base::FormatFixed(o.value, o.value == static_cast<int64_t>(o.value) ? 0 : 2);
  }
  return out.empty() ? "always on" : out;
}

std::string_view SeverityFor(double pct) {
  if (pct >= 10) return "high";
  if (pct >= 3) return "medium";
  return "low";
}

AnalyzeOptions::AnalyzeOptions() {
  for (const auto& r : Rules()) {
    for (const auto& o : r.options) o.apply(*this, o.value);
  }
}

}  // namespace gpuscope::analysis
