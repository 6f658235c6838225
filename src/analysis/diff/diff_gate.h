#pragma once
// The CI gate of `gpuscope diff --fail-if-slower PCT`: a run fails when the after side is
// significantly slower (by the diff's test) by more than PCT percent of the diff's basis.

#include <string>

#include "analysis/diff/diff.h"

namespace gpuscope::analysis {

struct GateResult {
  bool regression = false;  // exit 1
  double change_percent = 0;
  // One line: pass or FAIL, the change and its basis, whether it is significant with the test's
  // p and the counts of steps it compared, and what the gate allows.
  std::string message;
};

GateResult CheckGate(const DiffReport& report, double max_slower_percent);

}  // namespace gpuscope::analysis
