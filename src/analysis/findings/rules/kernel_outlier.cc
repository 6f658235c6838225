// kernel-outlier: instances of a kernel much slower than their siblings from the same call site.

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <tuple>

#include "analysis/findings/rules/rule_checks.h"
#include "analysis/work/kernel_categories.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace kernel_outlier_rule {
namespace {

// How much slower than the next slowest the slowest of a call site's 3-4 instances must be.
constexpr double kFewRatio = 10.0;
// Block lengths tried for slow instances that recur with a repeated block (DropRecurring).
constexpr size_t kBlockCandidates = 8;
// Slow instances recur when they are in at least this many blocks or steps (two outliers by
// chance a block apart do not).
constexpr size_t kMinRepeats = 3;

// One kernel instance in the window, with the key of its group of siblings: the kernel, its
// launch shape, its call site (the op's name and user frame; row ids differ per call) and the
// op's shapes.
struct Instance {
  model::StringId name;
  model::Dim3 grid, block;
  int32_t phase;  // the serving phase of its step (-1: the trace has none, or no step)
  model::StringId op;
  RowId frame;
  model::StringId shapes;
  uint32_t row;
  auto Key() const { return std::tie(name, grid, block, phase, op, frame, shapes, row); }
  // One kernel as far as siblings go: one name and launch shape in one serving phase (a prefill
  // step's GEMM runs other shapes than a decode step's, recorded or not).
  bool SameKernel(const Instance& o) const {
    return name == o.name && grid == o.grid && block == o.block && phase == o.phase;
  }
  bool SameSite(const Instance& o) const {
    return SameKernel(o) && op == o.op && frame == o.frame && shapes == o.shapes;
  }
};

// A group of siblings to check: its rows, whether its call site is known, whether it is a
// call site of 3-4 instances.
struct Siblings {
  std::span<const uint32_t> rows;
  bool site_known = false, few = false;
  // Recorded op shapes, the same for every sibling: the same work, so a slower instance is
  // slower however regularly it recurs (issue 50: same op and shapes where recorded).
  bool same_work = false;
};

// The window's kernel instances with the key of their group of siblings: one kernel, launch
// shape, call site (the same op from the same frame) and op shapes - a GEMM called with other
// shapes, or another layer's, is not a sibling. Groups are runs of one sorted array (48 bytes
// per instance), not a map of vectors. A kernel of fewer than 3 instances in the window has no
// group to check (a call site needs 3, a pooled group 5): counted first, such instances take no
// memory (a million kernels of their own names cost nothing here, issue 33).
std::vector<Instance> Instances(const Context& c) {
  const Trace& t = c.t();
  // The names of 3 or more instances, sorted (4 bytes per kernel of the window while counted).
  std::vector<model::StringId> names;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) names.push_back(t.kernels.name[i]);
  std::sort(names.begin(), names.end());
  size_t w = 0, kept = 0;
  // Collectives (NCCL/RCCL, a custom all-reduce) last as long as the slowest peer takes to
  // arrive: a slow instance waited for another rank, which comm-wait prices; never an outlier.
  const CategoryRules& rules = c.o().categories ? *c.o().categories : *BuiltInCategoryRules();
  auto collective = [&](model::StringId n) {
    return rules.OfKernel(t.str(n)) == KernelCategory::kCommunication;
  };
  for (size_t b = 0, e = 0; b < names.size(); b = e) {
    while (e < names.size() && names[e] == names[b]) ++e;
    if (e - b >= 3 && !collective(names[b])) names[w++] = names[b], kept += e - b;
  }
  names.resize(w);
  names.shrink_to_fit();
  const SteadyState& st = c.steady();
  auto phase_at = [&](int64_t ts) -> int32_t {
    if (st.phases.empty()) return -1;
    const int step = st.StepAt(ts);
    return step < 0 ? -1 : st.iterations[static_cast<size_t>(step)].phase;
  };
  std::vector<Instance> inst;
  inst.reserve(kept);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!std::binary_search(names.begin(), names.end(), t.kernels.name[i])) continue;
    if (!c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) continue;
    RowId l = t.kernels.launch[i];
    RowId site = l == kNoRow ? kNoRow : t.api.enclosing_op[l];
    RowId place = site == kNoRow ? kNoRow : c.at().UserFrameOfCpu(site);
    model::StringId op = site == kNoRow ? 0 : t.cpu.name[site];
    RowId frame = place == kNoRow ? kNoRow : t.python.name[place];
    // The shapes of the innermost op around the launch that recorded them (0: none recorded).
    model::StringId shapes = 0;
    for (RowId r = site; r != kNoRow && shapes == 0; r = t.cpu.parent[r]) shapes = t.cpu.args[r];
    // Recorded shapes say what work an instance does: the layers that call a kernel with the
    // same shapes are siblings whichever frame calls them (a model's layers); without shapes,
    // the call site stands in for them.
    if (shapes != 0) frame = kNoRow;
    inst.push_back({t.kernels.name[i], t.kernels.grid[i], t.kernels.block[i],
                    phase_at(LaunchedAt(t, l, t.kernels.start_ns[i])), op, frame, shapes,
                    static_cast<uint32_t>(i)});
  }
  return inst;
}

// Slow instances that recur with the run's repeats are a population of their own, not outliers
// (issue 50): whole positions of a repeated block of the group's instances (in launch order, a
// block of k instances repeated at least 3 times, a position slow in every repeat, the window's
// first and last block possibly cut: one layer's GEMM in every layer; the block whose whole
// positions hold most slow instances), else, when all slow
// ones are, the same number in every steady step (the classifier's GEMM once a step). Clears
// them in `slow`; returns how many are left. Fewer than 3 slow instances never recur.
size_t DropRecurring(const Context& c, std::span<const uint32_t> rows, std::vector<uint8_t>& slow) {
  const size_t n = rows.size();
  size_t count = 0;
  for (uint8_t x : slow) count += x;
  if (count < kMinRepeats) return count;
  // Block lengths to try: the distances between consecutive slow instances (one layer's GEMM
  // recurs a block apart), the most frequent few; a block needs kMinRepeats repeats.
  std::map<size_t, size_t> gaps;
  for (size_t i = 0, prev = n; i < n; ++i) {
    if (!slow[i]) continue;
    if (prev < n && kMinRepeats * (i - prev) <= n) ++gaps[i - prev];
    prev = i;
  }
  std::vector<std::pair<size_t, size_t>> ranked;  // (times seen, block)
  for (auto [k, seen] : gaps) ranked.emplace_back(seen, k);
  std::sort(ranked.rbegin(), ranked.rend());
  if (ranked.size() > kBlockCandidates) ranked.resize(kBlockCandidates);
  size_t best_k = 0, best = 0;
  for (auto [seen, k] : ranked) {
    size_t covered = 0;  // slow instances at positions slow in every repeat
    for (size_t p = 0; p < k; ++p) {
      size_t in = 0, all = 0;
      for (size_t i = p; i < n; i += k) in += slow[i], ++all;
      covered += in == all && all >= kMinRepeats ? in : 0;
    }
    if (covered > best || (covered == best && k < best_k)) best = covered, best_k = k;
  }
  if (best > 0) {
    for (size_t p = 0; p < best_k; ++p) {
      bool all = true;
      for (size_t i = p; i < n && all; i += best_k) all = slow[i];
      for (size_t i = p; i < n && all; i += best_k) slow[i] = 0;
    }
    return count - best;
  }
  const SteadyState& st = c.steady();
  if (st.steady_count() < kMinRepeats) return count;
  std::vector<size_t> per_step(st.iterations.size(), 0);
  const Trace& t = c.t();
  for (size_t i = 0; i < n; ++i) {
    if (!slow[i]) continue;
    const uint32_t r = rows[i];
    const int step = st.StepAt(LaunchedAt(t, t.kernels.launch[r], t.kernels.start_ns[r]));
    if (step < 0) return count;
    ++per_step[static_cast<size_t>(step)];
  }
  for (size_t s = st.warmup; s < st.iterations.size(); ++s)
    if (per_step[s] == 0 || per_step[s] != per_step[st.warmup]) return count;
  std::fill(slow.begin(), slow.end(), 0);
  return 0;
}

// The sibling groups with slow instances that do not recur, in the order they are checked
// (claim-free: made before the rule's turn where a second core is free).
struct SlowGroup {
  std::vector<uint32_t> rows;
  std::vector<uint8_t> slow;  // per row: an outlier
  int64_t med = 0;
  double limit = 0;
};

std::vector<SlowGroup> MakeSlowGroups(const Context& c) {
  std::vector<SlowGroup> out;
  const Trace& t = c.t();
  std::vector<Instance> inst = Instances(c);
  std::sort(inst.begin(), inst.end(),
            [](const Instance& a, const Instance& b) { return a.Key() < b.Key(); });
  std::vector<uint32_t> rows(inst.size());
  for (size_t i = 0; i < inst.size(); ++i) rows[i] = inst[i].row;
  // A call site with fewer than 5 instances (one layer's conv, called once a step) joins the
  // kernel's other instances with the same launch shape, as a group without a known call site.
  // A call site of 3-4 instances is checked on its own too, with a bar no jitter reaches: its
  // slowest instance 10x the next slowest (one layer's kernel made milliseconds slower once in
  // three steps). Call sites first, then the pooled groups, each in key order.
  std::vector<Siblings> checked;
  std::vector<uint32_t> pooled_rows;
  std::vector<std::pair<size_t, size_t>> pooled_spans;
  for (size_t k = 0; k < inst.size();) {
    size_t kernel_end = k;
    while (kernel_end < inst.size() && inst[k].SameKernel(inst[kernel_end])) ++kernel_end;
    const size_t pool_begin = pooled_rows.size();
    for (size_t b = k; b < kernel_end;) {
      size_t e = b;
      while (e < kernel_end && inst[b].SameSite(inst[e])) ++e;
      const size_t n = e - b;
      const bool site = inst[b].op != 0 || inst[b].shapes != 0;
      if (n >= 5 || (site && n >= 3))
        checked.push_back(
            {std::span<const uint32_t>(rows.data() + b, n), site, n < 5, inst[b].shapes != 0});
      if (n < 5) pooled_rows.insert(pooled_rows.end(), rows.begin() + b, rows.begin() + e);
      b = e;
    }
    if (pooled_rows.size() - pool_begin >= 5)
      pooled_spans.emplace_back(pool_begin, pooled_rows.size());
    else
      pooled_rows.resize(pool_begin);
    k = kernel_end;
  }
  std::vector<Instance>().swap(inst);
  // Spans of pooled_rows once it stops growing.
  for (auto [b, e] : pooled_spans)
    checked.push_back({std::span<const uint32_t>(pooled_rows.data() + b, e - b), false, false});
  for (const Siblings& g : checked) {
    const bool site_known = g.site_known, few = g.few;
    std::vector<int64_t> d;
    for (uint32_t r : g.rows) d.push_back(t.kernels.dur_ns[r]);
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
    std::vector<uint8_t> is_slow(g.rows.size());
    for (size_t i = 0; i < g.rows.size(); ++i)
      slow += is_slow[i] = static_cast<double>(t.kernels.dur_ns[g.rows[i]]) > limit;
    if (slow == 0 || (!site_known && slow > 1 && slow * 10 > g.rows.size())) continue;
    if (!g.same_work && DropRecurring(c, g.rows, is_slow) == 0) continue;
    out.push_back(
        {std::vector<uint32_t>(g.rows.begin(), g.rows.end()), std::move(is_slow), med, limit});
  }
  return out;
}

void Prepare(const Context& c) { c.Prepared(MakeSlowGroups); }

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  for (const SlowGroup& g : c.Prepared(MakeSlowGroups)) {
    const std::vector<uint8_t>& is_slow = g.slow;
    const int64_t med = g.med;
    const double limit = g.limit;
    int64_t excess = 0;
    std::vector<uint32_t> outliers;
    Candidate cand{Make(c, "kernel-outlier", 0), {}};
    for (size_t i = 0; i < g.rows.size(); ++i) {
      const uint32_t r = g.rows[i];
      if (is_slow[i] && claims.TakeKernel(r)) {
        excess += t.kernels.dur_ns[r] - med, outliers.push_back(r);
        cand.fix.kernel_dur.emplace_back(r, med);
      }
    }
    if (outliers.empty()) continue;
    cand.fix.what = "the outliers run at the median";
    Finding& f = cand.finding;
    f.where = c.at().Kernel(outliers.front());
    f.detail = base::FormatCount(outliers.size()) + " of " +
               base::Counted(g.rows.size(), "instance", "instances") + " slower than " +
               base::FormatDuration(static_cast<int64_t>(limit)) + " (median " +
               base::FormatDuration(med) + "), " + base::FormatDuration(excess) +
               " beyond the median";
    std::sort(outliers.begin(), outliers.end(),
              [&](uint32_t a, uint32_t b) { return t.kernels.dur_ns[a] > t.kernels.dur_ns[b]; });
    for (uint32_t r : outliers) {
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
}  // namespace kernel_outlier_rule

const RuleInfo& KernelOutlierRule() {
  static const RuleInfo rule{
      .id = "kernel-outlier",
      .title = "Kernel instances much slower than their siblings",
      .definition =
          "Instances of one kernel (same name, grid and block, in steps of the same serving phase "
          "where the trace has several, launched by the same op with the same op shapes when the "
          "trace records them, else from the same user frame; at least 5 in the steady state, else "
          "the kernel's instances with that grid and block from call sites of fewer than 5 pooled, "
          "as a group without a known call site; a known call site of 3-4 instances also alone, "
          "where its slowest must be 10x the next slowest) slower than median + max(5 x 1.4826 x "
          "MAD, 0.5 x median): robust to the spread of normal runs. Outliers are rare: where no "
          "launch record gives the call site or shapes, a group whose slow instances are more than "
          "one and more than 10% of it is two populations (another shape), not outliers, and is "
          "not reported. Nor are slow instances that recur with the run's repeats (issue 50): "
          "whole positions of a block of the group's instances repeated at least 3 times (one "
          "layer's GEMM in every layer), or as many in each of at least 3 steady steps (a GEMM "
          "run once a step).",
      .impact = "replayed: the outlier instances run at the median.",
      .advice =
          "Look at what ran at the same time (other streams, other processes, clocks/thermals, "
          "memory allocation or autotuning inside the step); pin clocks when benchmarking.",
      .options = {{"--outlier-mads", "kernel-outlier: MADs above the median", 5,
                   [](AnalyzeOptions& o, double v) { o.outlier_mads = v; }}},
      .detect = &kernel_outlier_rule::Detect,
      .prepare = &kernel_outlier_rule::Prepare,
      .limits =
          "kernels with fewer than 5 instances of one name, grid and block in the steady state (3 "
          "from one known call site, one 10x slower); slow instances within max(5 MADs, half the "
          "median) of the median; a group of two populations without call-site records; a prefill "
          "step's instances against a decode step's (other shapes, recorded or not: phases are "
          "never siblings); slow instances recurring at one position of a repeated block or as "
          "many in every steady step; collectives (the communication category: an instance "
          "that waited for the slowest rank is slow by the job, not by itself)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
