#include "analysis/findings/rules/host_op_removal.h"

#include <algorithm>

namespace gpuscope::analysis::internal {

void RemoveHostOps(const Trace& t, const std::vector<RowId>& ops, WhatIf& fix, Claims& claims) {
  if (ops.empty()) return;
  std::vector<int64_t> durs;
  for (RowId r : ops) durs.push_back(t.cpu.dur_ns[r]);
  std::nth_element(durs.begin(), durs.begin() + static_cast<long>(durs.size() / 2), durs.end());
  const int64_t median = durs[durs.size() / 2];
  for (RowId r : ops) {
    int64_t d = t.cpu.dur_ns[r];
    double keep = d > median ? static_cast<double>(d - median) / static_cast<double>(d) : 0.0;
    fix.host_scale.push_back({t.cpu.track[r], t.cpu.start_ns[r], t.cpu.end_ns(r), keep});
    claims.Explain(t.cpu.start_ns[r], t.cpu.start_ns[r] + std::min(d, median));
  }
}

}  // namespace gpuscope::analysis::internal
