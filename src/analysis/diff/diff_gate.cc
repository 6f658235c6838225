#include "analysis/diff/diff_gate.h"

namespace gpuscope::analysis {

GateResult CheckGate(const DiffReport& r, double max_slower_percent) {
  GateResult g;
  g.change_percent = r.change_percent;
  g.regression =
      r.verdict_kind == DiffReport::Verdict::kSlower && r.change_percent > max_slower_percent;
  return g;
}

}  // namespace gpuscope::analysis
