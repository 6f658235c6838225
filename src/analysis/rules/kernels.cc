// kernel-outlier and kernel-hotspot: slow instances of a kernel, and the kernels that dominate.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

void KernelOutliersAndHotspots(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  struct Group {
    std::vector<size_t> rows;
  };
  // Instances of one kernel, launch shape and call site (the same op from the same frame): the
  // model records no input shapes, and the call site is what tells a layer's GEMM from another's.
  std::map<std::tuple<model::StringId, model::Dim3, model::Dim3, model::StringId, RowId>, Group>
      groups;
  std::map<model::StringId, int64_t> by_name;
  int64_t total = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) continue;
    RowId l = t.kernels.launch[i];
    RowId site = l == kNoRow ? kNoRow : t.api.enclosing_op[l];
    RowId place = site == kNoRow ? kNoRow : c.at().UserFrameOfCpu(site);
    // The op's name and its user frame identify the call site (row ids differ per call).
    model::StringId op = site == kNoRow ? 0 : t.cpu.name[site];
    RowId frame = place == kNoRow ? kNoRow : t.python.name[place];
    groups[{t.kernels.name[i], t.kernels.grid[i], t.kernels.block[i], op, frame}].rows.push_back(i);
    by_name[t.kernels.name[i]] += t.kernels.dur_ns[i];
    total += t.kernels.dur_ns[i];
  }
  for (auto& [key, g] : groups) {
    if (g.rows.size() < 5) continue;
    std::vector<int64_t> d;
    for (size_t r : g.rows) d.push_back(t.kernels.dur_ns[r]);
    std::vector<int64_t> s = d;
    std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
    int64_t med = s[s.size() / 2];
    for (auto& v : s) v = std::abs(v - med);
    std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
    double mad = static_cast<double>(s[s.size() / 2]);
    double limit = static_cast<double>(med) +
                   std::max(c.o().outlier_mads * 1.4826 * mad, 0.5 * static_cast<double>(med));
    int64_t excess = 0;
    std::vector<size_t> outliers;
    Candidate cand{Make(c, "kernel-outlier", 0), {}};
    for (size_t r : g.rows) {
      if (static_cast<double>(t.kernels.dur_ns[r]) > limit && claims.TakeKernel(r)) {
        excess += t.kernels.dur_ns[r] - med, outliers.push_back(r);
        cand.fix.kernel_dur.emplace_back(r, med);
      }
    }
    if (outliers.empty()) continue;
    cand.fix.what = "the outliers run at the median";
    Finding& f = cand.finding;
    f.where = c.at().Kernel(outliers.front());
    f.detail = base::FormatCount(outliers.size()) + " of " + base::FormatCount(g.rows.size()) +
               " instances slower than " + base::FormatDuration(static_cast<int64_t>(limit)) +
               " (median " + base::FormatDuration(med) + "), " + base::FormatDuration(excess) +
               " beyond the median";
    std::sort(outliers.begin(), outliers.end(),
              [&](size_t a, size_t b) { return t.kernels.dur_ns[a] > t.kernels.dur_ns[b]; });
    for (size_t r : outliers) {
      AddEvidence(c, f, t.kernels.start_ns[r], t.kernels.dur_ns[r],
                  base::FormatFixed(static_cast<double>(t.kernels.dur_ns[r]) /
                                        static_cast<double>(std::max<int64_t>(1, med)),
                                    1) +
                      "x the median");
    }
    out.push_back(std::move(cand));
  }
  std::vector<std::pair<int64_t, model::StringId>> ranked;
  for (auto& [n, ns] : by_name) ranked.emplace_back(ns, n);
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t k = 0; k < ranked.size() && k < 3; ++k) {
    double share = total ? static_cast<double>(ranked[k].first) / static_cast<double>(total) : 0;
    if (share < c.o().hotspot_share) break;
    Candidate cand{Make(c, "kernel-hotspot", 0), {}};
    Finding& f = cand.finding;
    f.severity = "info";
    f.where.kernel = base::Demangle(t.str(ranked[k].second));
    f.detail = base::FormatFixed(100 * share, 1) + "% of the steady-state kernel time (" +
               base::FormatDuration(ranked[k].first) + ")";
    out.push_back(std::move(cand));
  }
}

}  // namespace gpuscope::analysis::internal
