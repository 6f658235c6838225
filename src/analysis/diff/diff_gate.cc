#include "analysis/diff/diff_gate.h"

#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// "+25.6%", "-3.0%". Appended, not "+" + string (GCC 12's -Wrestrict false positive).
std::string Signed(double pct) {
  std::string out = pct >= 0 ? "+" : "";
  out += base::FormatFixed(pct, 1);
  out += '%';
  return out;
}

// "significant (p = 0.0010 on 30 vs 30 steady steps)", or the test's own words without a rank
// test (too few steps, kernel time).
std::string Significance(const DiffReport& r) {
  std::string out = r.significant ? "significant" : "not significant";
  if (r.p_value < 0) return out + " (" + r.test + ")";
  return out + " (p = " + base::FormatFixed(r.p_value, 4) + " on " +
         base::FormatCount(r.tested_before) + " vs " + base::FormatCount(r.tested_after) +
         " steady steps" + (r.significant ? "" : ": more steps may tell") + ")";
}

}  // namespace

GateResult CheckGate(const DiffReport& r, double max_slower_percent) {
  GateResult g;
  g.change_percent = r.change_percent;
  g.regression =
      r.verdict_kind == DiffReport::Verdict::kSlower && r.change_percent > max_slower_percent;
  const std::string allows = Signed(max_slower_percent);
  if (!r.not_comparable_reason.empty()) {
    g.message = "pass: not comparable, nothing gated (" + r.not_comparable_reason + ")";
    return g;
  }
  const std::string change = Signed(r.change_percent) + " in " + r.basis + ", " + Significance(r);
  if (g.regression)
    g.message = "FAIL: slower by " + change + "; the gate allows " + allows;
  else if (r.verdict_kind == DiffReport::Verdict::kSlower)
    g.message = "pass: slower by " + change + ", within the " + allows + " the gate allows";
  else if (r.verdict_kind == DiffReport::Verdict::kFaster)
    g.message = "pass: faster by " + change;
  else
    g.message = "pass: " + change + "; the gate fails only a significant slowdown above " + allows;
  return g;
}

}  // namespace gpuscope::analysis
