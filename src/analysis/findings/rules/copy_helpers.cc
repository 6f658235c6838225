#include "analysis/findings/rules/copy_helpers.h"

#include <algorithm>

namespace gpuscope::analysis::internal {

PinnedSpeed::PinnedSpeed(const Trace& t) : t_(t) {
  std::map<model::MemopKind, std::pair<double, double>> sum;
  const auto& mo = t.memops;
  for (size_t m = 0; m < mo.size(); ++m) {
    if (!HostSide(mo.kind[m]) || HostMemory(t, m) != model::MemoryKind::kPinned ||
        mo.bytes[m] <= 0 || mo.dur_ns[m] <= 0)
      continue;
    auto& s = sum[mo.kind[m]];
    s.first += static_cast<double>(mo.bytes[m]);
    s.second += static_cast<double>(mo.dur_ns[m]);
  }
  for (auto& [k, s] : sum) bytes_per_ns_[k] = s.first / s.second;
}

int64_t PinnedSpeed::Duration(size_t m) const {
  const auto& mo = t_.memops;
  auto it = bytes_per_ns_.find(mo.kind[m]);
  if (it != bytes_per_ns_.end() && mo.bytes[m] > 0)
    return std::min(mo.dur_ns[m],
                    static_cast<int64_t>(static_cast<double>(mo.bytes[m]) / it->second));
  return mo.dur_ns[m] / 2;
}

std::string PinnedSpeed::Basis() const {
  return bytes_per_ns_.empty() ? "half their time (no pinned copy in the trace to measure)"
                               : "the pinned bandwidth measured in this trace";
}

void CopyGroup::Add(const Context& c, size_t m, int64_t weight) {
  const Trace& t = c.t();
  ++n;
  ns += t.memops.dur_ns[m];
  bytes += std::max<int64_t>(0, t.memops.bytes[m]);
  RowId l = t.memops.launch[m];
  if (l != kNoRow) api_ns += t.api.dur_ns[l];
  Where w = c.at().Memop(m);
  where[{w.python, w.op}] += weight;
  rows.emplace_back(weight, m);
}

void CopyGroup::Emit(const Context& c, std::vector<Candidate>& out, std::string_view rule,
                     std::string detail) {
  const Trace& t = c.t();
  const auto& mo = t.memops;
  Candidate cand{Make(c, rule, 0), std::move(fix)};
  Finding& f = cand.finding;
  auto w = std::max_element(where.begin(), where.end(),
                            [](auto& x, auto& y) { return x.second < y.second; });
  f.where.python = w->first.first;
  f.where.op = w->first.second;
  f.detail = std::move(detail);
  // Heaviest first; among equals the longest copy, then the earliest.
  const size_t listed = std::min(rows.size(), c.o().evidence);
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(listed), rows.end(),
                    [&](const auto& x, const auto& y) {
                      if (x.first != y.first) return x.first > y.first;
                      if (mo.dur_ns[x.second] != mo.dur_ns[y.second])
                        return mo.dur_ns[x.second] > mo.dur_ns[y.second];
                      return x.second < y.second;
                    });
  rows.resize(listed);
  for (const auto& row : rows) {
    const size_t m = row.second;
    RowId l = mo.launch[m];
    AddEvidence(
        c, f, mo.start_ns[m], mo.dur_ns[m],
        std::string(t.str(mo.name[m])) + ", " +
            (mo.bytes[m] >= 0 ? base::FormatBytes(mo.bytes[m]) : std::string("size unknown")) +
            (l != kNoRow ? " by " + std::string(t.str(t.api.name[l])) : ""));
  }
  out.push_back(std::move(cand));
}

}  // namespace gpuscope::analysis::internal
