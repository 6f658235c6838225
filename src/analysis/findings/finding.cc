#include "analysis/findings/finding.h"

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

}  // namespace gpuscope::analysis
