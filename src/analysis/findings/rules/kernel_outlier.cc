// kernel-outlier: instances of a kernel much slower than their siblings from the same call site.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

namespace {

// How much slower than the next slowest the slowest of a call site's 3-4 instances must be.
constexpr double kFewRatio = 10.0;

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  struct Group {
    std::vector<size_t> rows;
  };
  // Instances of one kernel, launch shape, call site (the same op from the same frame) and op
  // shapes: a GEMM called with other shapes, or another layer's, is not a sibling.
  std::map<std::tuple<model::StringId, model::Dim3, model::Dim3, model::StringId, RowId,
                      model::StringId>,
           Group>
      groups;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) continue;
    RowId l = t.kernels.launch[i];
    RowId site = l == kNoRow ? kNoRow : t.api.enclosing_op[l];
    RowId place = site == kNoRow ? kNoRow : c.at().UserFrameOfCpu(site);
    // The op's name and its user frame identify the call site (row ids differ per call).
    model::StringId op = site == kNoRow ? 0 : t.cpu.name[site];
    RowId frame = place == kNoRow ? kNoRow : t.python.name[place];
    // The shapes of the innermost op around the launch that recorded them (0: none recorded).
    model::StringId shapes = 0;
    for (RowId r = site; r != kNoRow && shapes == 0; r = t.cpu.parent[r]) shapes = t.cpu.args[r];
    // Recorded shapes say what work an instance does: the layers that call a kernel with the
    // same shapes are siblings whichever frame calls them (a model's layers); without shapes,
    // the call site stands in for them.
    if (shapes != 0) frame = kNoRow;
    groups[{t.kernels.name[i], t.kernels.grid[i], t.kernels.block[i], op, frame, shapes}]
        .rows.push_back(i);
  }
  // A call site with fewer than 5 instances (one layer's conv, called once a step) joins the
  // kernel's other instances with the same launch shape, as a group without a known call site.
  std::map<std::tuple<model::StringId, model::Dim3, model::Dim3>, Group> pooled;
  for (auto& [key, g] : groups) {
    if (g.rows.size() >= 5) continue;
    auto& p = pooled[{std::get<0>(key), std::get<1>(key), std::get<2>(key)}].rows;
    p.insert(p.end(), g.rows.begin(), g.rows.end());
  }
  // (group, call site known, few): a call site of 3-4 instances is checked on its own too, with
  // a bar no jitter reaches: its slowest instance 10x the next slowest (one layer's kernel made
  // milliseconds slower once in three steps).
  std::vector<std::tuple<const Group*, bool, bool>> checked;
  for (auto& [key, g] : groups) {
    bool site = std::get<3>(key) != 0 || std::get<5>(key) != 0;
    if (g.rows.size() >= 5 || (site && g.rows.size() >= 3))
      checked.emplace_back(&g, site, g.rows.size() < 5);
  }
  for (auto& [key, g] : pooled) {
    if (g.rows.size() >= 5) checked.emplace_back(&g, false, false);
  }
  for (const auto& [gp, site_known, few] : checked) {
    const Group& g = *gp;
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
    if (few) {
      std::sort(d.begin(), d.end());
      limit = std::max(limit, kFewRatio * static_cast<double>(d[d.size() - 2]));
    }
    // Without a call site or shapes (no launch record, or call sites pooled), one name can hold
    // several populations (another GEMM shape): slow instances are outliers only when rare,
    // else a second mode.
    size_t slow = 0;
    for (size_t r : g.rows) slow += static_cast<double>(t.kernels.dur_ns[r]) > limit;
    if (slow == 0 || (!site_known && slow > 1 && slow * 10 > g.rows.size())) continue;
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
}

}  // namespace

const RuleInfo& KernelOutlierRule() {
  static const RuleInfo rule{
      "kernel-outlier",
      "Kernel instances much slower than their siblings",
      "Instances of one kernel (same name, grid and block, launched by the same op with the "
      "same op shapes when the trace records them, else from the same user frame; at least 5 "
      "in the steady state, else the kernel's instances with that grid and block from call "
      "sites of fewer than 5 pooled, as a group without a known call site; a known call site "
      "of 3-4 instances also alone, where its slowest must be 10x the next slowest) slower "
      "than median + max(5 x 1.4826 x MAD, 0.5 x median): robust to the spread of normal "
      "runs. Outliers are rare: where no launch record gives the call site or shapes, a group "
      "whose slow instances are more than one and more than 10% of it is two populations "
      "(another shape), not outliers, and is not reported.",
      "replayed: the outlier instances run at the median.",
      "Look at what ran at the same time (other streams, other processes, clocks/thermals, "
      "memory allocation or autotuning inside the step); pin clocks when benchmarking.",
      {{"--outlier-mads", "kernel-outlier: MADs above the median", 5,
        [](AnalyzeOptions& o, double v) { o.outlier_mads = v; }}},
      &Detect,
      {},
      "kernels with fewer than 5 instances of one name, grid and block in the steady state "
      "(3 from one known call site, one 10x slower); "
      "slow instances within "
      "max(5 MADs, half the median) of the median; a group of two populations without "
      "call-site records."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
