#include "analysis/findings/finding.h"

namespace gpuscope::analysis {

Severity SeverityFor(double pct) {
  if (pct >= 10) return Severity::kHigh;
  if (pct >= 3) return Severity::kMedium;
  return Severity::kLow;
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      return "low";
    case Severity::kInfo:
      return "info";
  }
  return "low";
}

}  // namespace gpuscope::analysis
