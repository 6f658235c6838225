#include "analysis/diff/diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/diff/comparability.h"
#include "analysis/steps/kernel_period.h"
#include "base/short_name.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

std::vector<int64_t> SteadyDurations(const SteadyState& s) {
  std::vector<int64_t> d;
  for (size_t i = s.warmup; i < s.iterations.size(); ++i)
    if (!s.iterations[i].warmup) d.push_back(s.iterations[i].dur_ns);
  return d;
}

struct Row {
  uint64_t calls = 0;
  int64_t total = 0;
};

// Iteration times `db` -> `da`: a rank test with enough, else the mean's move vs 2x the spread.
void TestIterations(DiffReport& r, const std::vector<int64_t>& db, std::vector<int64_t> da,
                    const LatencyStats& lb, LatencyStats la) {
  r.batch.PerSample(da, la.stddev_ns);  // per sample when the batch sizes differ
  r.tested_before = db.size(), r.tested_after = da.size();
  if (db.size() >= 5 && da.size() >= 5) {
    r.p_value = MannWhitneyP(db, da);
    r.significant = r.p_value < 0.05;
    r.test = "Mann-Whitney rank test on " + std::to_string(db.size()) + " vs " +
             std::to_string(da.size()) +
             " steady iterations, two-sided p = " + base::FormatFixed(r.p_value, 4) +
             " (significant below 0.05)";
  } else {
    double spread = static_cast<double>(std::max(lb.stddev_ns, la.stddev_ns));
    if (spread == 0)
      spread = 0.01 * std::max(r.iteration_mean_ns.before, r.iteration_mean_ns.after);
    const double per = r.batch.known() ? r.batch.ratio : 1.0;
    double delta = std::abs(r.iteration_mean_ns.after / per - r.iteration_mean_ns.before);
    r.significant = delta > 2 * spread;
    r.test = "too few iterations for a rank test (" + std::to_string(db.size()) + " vs " +
             std::to_string(da.size()) + "): the mean moved " +
             base::FormatDuration(static_cast<int64_t>(delta)) + " against 2x the larger stddev " +
             base::FormatDuration(static_cast<int64_t>(2 * spread));
  }
}

// Without marked steps on both sides, the iterations the kernels' repeats show
// (steps/kernel_period.h): each period's time as an iteration. False when either side has no
// period with two whole repeats.
bool PeriodsFromRepeats(DiffReport& r, const model::Trace& before, const model::Trace& after,
                        std::vector<int64_t>* db, std::vector<int64_t>* da, LatencyStats* lb,
                        LatencyStats* la) {
  KernelPeriod pb = FindKernelPeriod(before), pa = FindKernelPeriod(after);
  if (pb.period_ns.size() < 2 || pa.period_ns.size() < 2) return false;
  *db = pb.period_ns, *da = pa.period_ns;
  *lb = Latencies(*db), *la = Latencies(*da);
  r.period_kernels_before = pb.kernels, r.period_kernels_after = pa.kernels;
  auto d = [](int64_t v) { return static_cast<double>(v); };
  r.iterations = {d(static_cast<int64_t>(db->size())), d(static_cast<int64_t>(da->size()))};
  r.iteration_mean_ns = {d(lb->mean_ns), d(la->mean_ns)};
  r.iteration_median_ns = {d(lb->median_ns), d(la->median_ns)};
  r.iteration_p95_ns = {d(lb->p95_ns), d(la->p95_ns)};
  r.basis =
      "iteration period from kernel repeats (steps not marked: " + base::FormatCount(pb.kernels) +
      " vs " + base::FormatCount(pa.kernels) + " kernels repeat on the busiest GPU, " +
      base::FormatDuration(lb->mean_ns) + " vs " + base::FormatDuration(la->mean_ns) +
      " per period)";
  return true;
}

// Rows of both sides matched by key; status by presence and the size of the change.
std::vector<NamedDiff> Match(const std::map<std::string, Row>& b,
                             const std::map<std::string, Row>& a, size_t iters_b, size_t iters_a,
                             double changed_percent) {
  std::vector<NamedDiff> out;
  std::map<std::string, std::pair<const Row*, const Row*>> all;
  for (const auto& [k, r] : b) all[k].first = &r;
  for (const auto& [k, r] : a) all[k].second = &r;
  for (const auto& [k, rows] : all) {
    NamedDiff d;
    d.name = k;
    if (rows.first) d.calls_before = rows.first->calls, d.total_before = rows.first->total;
    if (rows.second) d.calls_after = rows.second->calls, d.total_after = rows.second->total;
    if (iters_b && iters_a) {
      d.calls_per_iteration_before =
          static_cast<double>(d.calls_before) / static_cast<double>(iters_b);
      d.calls_per_iteration_after =
          static_cast<double>(d.calls_after) / static_cast<double>(iters_a);
    }
    if (!rows.first)
      d.status = "added";
    else if (!rows.second)
      d.status = "removed";
    else {
      double base = static_cast<double>(std::max<int64_t>(1, d.total_before));
      bool moved = std::abs(static_cast<double>(d.delta())) * 100.0 / base >= changed_percent ||
                   d.calls_before != d.calls_after;
      d.status = moved ? "changed" : "same";
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const NamedDiff& x, const NamedDiff& y) {
    int64_t dx = std::llabs(x.delta()), dy = std::llabs(y.delta());
    return dx != dy ? dx > dy : x.name < y.name;
  });
  return out;
}

// Without iterations on both sides the two windows may hold different amounts of work (300 ms
// of 34 attention calls against 300 ms of 30): kernel time is compared per call of the dominant
// kernel both runs share (the largest total before), when its call counts differ. Nothing shared:
// not comparable (no change is claimed). Sets basis, test and significance; returns the change.
double KernelTimePerUnitOfWork(DiffReport& r, const DiffOptions& o, bool before_has_iterations,
                               bool* comparable) {
  const std::string side = before_has_iterations ? "the after" : "the before";
  const NamedDiff* unit = nullptr;
  for (const NamedDiff& k : r.kernels) {
    if (k.calls_before > 0 && k.calls_after > 0 && (!unit || k.total_before > unit->total_before))
      unit = &k;
  }
  const std::string threshold = base::FormatFixed(o.changed_percent, 0) + "% or more";
  if (!unit && r.kernel_ns.before > 0 && r.kernel_ns.after > 0) {
    *comparable = false;
    r.significant = false;
    r.basis = "no kernel runs in both, and no iterations on " + side + " side";
    r.test = "nothing both runs did can be counted: time cannot be compared per unit of work";
    return 0;
  }
  double ratio =
      unit ? static_cast<double>(unit->calls_after) / static_cast<double>(unit->calls_before) : 1.0;
  double change = r.kernel_ns.change_percent();
  if (unit && std::abs(ratio - 1) * 100 >= 1) {
    double per_before = r.kernel_ns.before / static_cast<double>(unit->calls_before);
    double per_after = r.kernel_ns.after / static_cast<double>(unit->calls_after);
    change = per_before > 0 ? 100.0 * (per_after - per_before) / per_before : 0;
    r.basis = "GPU kernel time per call of " + base::ShortenName(unit->name, 40) + " (" +
              base::FormatCount(unit->calls_before) + " vs " +
              base::FormatCount(unit->calls_after) + " calls: the windows hold different work; " +
              "no iterations on " + side + " side)";
    r.test = "no iteration times to test: a change of " + threshold +
             " in kernel time per call of the dominant shared kernel counts";
  } else {
    r.basis = "total GPU kernel time (no iterations on " + side + " side)";
    r.test =
        "no iteration times to test: a change of " + threshold + " in total kernel time counts";
  }
  r.significant = std::abs(change) >= o.changed_percent;
  return change;
}

// The rows compared: the steady iterations, or the whole trace when it has none.
struct Window {
  int64_t start, end;
};

Window TableWindow(const model::Trace& t, const SteadyState& s) {
  if (!s.iterations.empty()) return {s.start_ns, s.end_ns};
  auto [lo, hi] = t.TimeSpan();
  return {lo, hi + 1};
}

template <typename Table, typename KeyFn>
std::map<std::string, Row> Group(const Table& t, Window w, KeyFn key) {
  std::map<std::string, Row> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.start_ns[i] < w.start || t.start_ns[i] >= w.end) continue;
    std::string k = key(i);
    if (k.empty()) continue;
    Row& r = out[k];
    ++r.calls;
    r.total += t.dur_ns[i];
  }
  return out;
}

}  // namespace

std::string NormalizeKernelName(std::string_view n) {
  std::string s(n);
  // Drop the parameter list (the last top-level "(...)").
  int depth = 0;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') {
      if (depth++ == 0) out += "<>";
      continue;
    }
    if (c == '>') {
      depth = std::max(0, depth - 1);
      continue;
    }
    if (depth > 0) continue;
    if (c == '(' && s.compare(i, 21, "(anonymous namespace)") == 0) {  // part of the name
      out += s.substr(i, 21), i += 20;
      continue;
    }
    if (c == '(') break;
    out += c;
  }
  // Return type ("void ", "float ") before a qualified name; "void " before any.
  const size_t qualified = out.find("::"), sp = out.rfind(' ', qualified);
  if (qualified != std::string::npos && sp != std::string::npos) out.erase(0, sp + 1);
  if (qualified == std::string::npos && out.starts_with("void ") && out.size() > 5) out.erase(0, 5);
  // Generated-kernel suffixes: "_123" counters, "_0x3fa9" / 16-hex hashes.
  while (!out.empty()) {
    size_t u = out.rfind('_');
    if (u == std::string::npos || u + 1 >= out.size()) break;
    std::string_view tail(out.data() + u + 1, out.size() - u - 1);
    bool digits =
        std::all_of(tail.begin(), tail.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    bool hash = tail.size() >= 8 && std::all_of(tail.begin(), tail.end(), [](char ch) {
                  return std::isxdigit(static_cast<unsigned char>(ch));
                });
    if (!digits && !hash) break;
    out.resize(u);
  }
  return out;
}

double MannWhitneyP(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n1 = a.size(), n2 = b.size();
  if (!n1 || !n2) return 1;
  std::vector<std::pair<int64_t, int>> all;
  for (int64_t v : a) all.emplace_back(v, 0);
  for (int64_t v : b) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double r1 = 0, tie = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    double rank =
        (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // average rank of the tie group
    for (size_t k = i; k < j; ++k) r1 += all[k].second == 0 ? rank : 0;
    double t = static_cast<double>(j - i);
    tie += t * t * t - t;
    i = j;
  }
  double N = static_cast<double>(n1 + n2);
  double u1 = r1 - static_cast<double>(n1) * (static_cast<double>(n1) + 1) / 2;
  double mu = static_cast<double>(n1) * static_cast<double>(n2) / 2;
  double var =
      static_cast<double>(n1) * static_cast<double>(n2) / 12 * ((N + 1) - tie / (N * (N - 1)));
  if (var <= 0) return 1;
  double z = (std::abs(u1 - mu) - 0.5) / std::sqrt(var);  // continuity correction
  if (z < 0) z = 0;
  return std::erfc(z / std::sqrt(2.0));
}

namespace {

// The findings of the two runs matched by rule and place: resolved, persisting or new; one the
// after run still has, priced under the threshold, is not resolved.
void MatchFindings(DiffReport& r, const model::Trace& after) {
  auto fkey = [](const Finding& f) {
    return f.rule + "\x1f" + f.title + "\x1f" + f.where.python + "\x1f" + f.where.op;
  };
  std::map<std::string, const Finding*> fb, fa, fa_under;
  for (const auto& f : r.before.findings) fb.emplace(fkey(f), &f);
  for (const auto& f : r.after.findings) fa.emplace(fkey(f), &f);
  for (const auto& f : r.after.under_threshold) fa_under.emplace(fkey(f), &f);
  for (const auto& f : r.before.findings) {
    if (f.severity == Severity::kInfo) continue;
    auto it = fa.find(fkey(f));
    auto under = fa_under.find(fkey(f));
    const Finding* now = it != fa.end()            ? it->second
                         : under != fa_under.end() ? under->second
                                                   : nullptr;
    const std::string_view status = it != fa.end()                                 ? kPersisting
                                    : under != fa_under.end()                      ? kStillPresent
                                    : OnlyInWarmup(after, r.after.steady, f.where) ? kMovedToWarmup
                                                                                   : kResolved;
    FindingDiff d{std::string(status),      f.rule, f.title, f.impact_ns,
                  now ? now->impact_ns : 0, f.where};
    r.findings.push_back(std::move(d));
  }
  for (const auto& f : r.after.findings) {
    if (f.severity == Severity::kInfo || fb.count(fkey(f))) continue;
    r.findings.push_back({std::string(kNew), f.rule, f.title, 0, f.impact_ns, f.where});
  }
}

}  // namespace

DiffReport Diff(const model::Trace& before, const model::Trace& after, const DiffOptions& o) {
  DiffReport r;
  r.before = Analyze(before, o.analyze);
  r.after = Analyze(after, o.analyze);
  const auto& sb = r.before.summary;
  const auto& sa = r.after.summary;
  const auto& stb = r.before.steady;
  const auto& sta = r.after.steady;
  auto pair = [](double b, double a) { return Pair{b, a}; };
  size_t ib = stb.iterations.empty() ? 0 : stb.steady_count(),
         ia = sta.iterations.empty() ? 0 : sta.steady_count();
  r.wall_ns = pair(static_cast<double>(sb.wall_ns), static_cast<double>(sa.wall_ns));
  r.iterations = pair(static_cast<double>(ib), static_cast<double>(ia));
  auto d = [](int64_t v) { return static_cast<double>(v); };
  r.iteration_mean_ns = pair(d(stb.latency.mean_ns), d(sta.latency.mean_ns));
  r.iteration_median_ns = pair(d(stb.latency.median_ns), d(sta.latency.median_ns));
  r.iteration_p95_ns = pair(d(stb.latency.p95_ns), d(sta.latency.p95_ns));
  r.gpu_busy_pct = pair(sb.gpu_busy_pct, sa.gpu_busy_pct);
  r.kernel_ns = pair(d(sb.kernel_ns), d(sa.kernel_ns));
  r.memcpy_ns = pair(d(sb.memcpy_ns), d(sa.memcpy_ns));
  r.api_ns = pair(d(sb.api_ns), d(sa.api_ns));
  auto bytes = [](const model::Trace& t, const SteadyState& s) {
    int64_t n = 0;
    for (size_t i = 0; i < t.memops.size(); ++i) {
      if (t.memops.kind[i] != model::MemopKind::kMemset && t.memops.start_ns[i] >= s.start_ns &&
          t.memops.start_ns[i] < s.end_ns) {
        n += std::max<int64_t>(0, t.memops.bytes[i]);
      }
    }
    return static_cast<double>(n);
  };
  r.copy_bytes = pair(bytes(before, stb), bytes(after, sta));
  r.stages = PairStages(stb.stages, sta.stages);
  Window wb = TableWindow(before, stb), wa = TableWindow(after, sta);
  r.batch = FindTokenRatio(stb, sta);  // serving: per token; else per sample from the shapes
  if (!r.batch.known()) r.batch = FindBatchRatio(before, wb.start, wb.end, after, wa.start, wa.end);

  // Verdict: per-iteration latency when both runs have iterations (marked steps, else the
  // period their kernels repeat with), else kernel time per unit of work.
  std::vector<int64_t> db = SteadyDurations(stb), da = SteadyDurations(sta);
  LatencyStats lb = stb.latency, la = sta.latency;
  const bool by_period = !(ib && ia) && PeriodsFromRepeats(r, before, after, &db, &da, &lb, &la);
  double change = 0;
  if ((ib && ia) || by_period) {
    if (!by_period) r.basis = "per-iteration latency";
    r.basis_kind = DiffReport::Basis::kIterationLatency;
    change = r.iteration_mean_ns.change_percent();
    TestIterations(r, db, da, lb, la);
  }
  auto warmup = [](const SteadyState& s) {
    int64_t ns = 0;
    for (size_t i = 0; i < s.warmup && i < s.iterations.size(); ++i) ns += s.iterations[i].dur_ns;
    return static_cast<double>(ns);
  };
  r.warmup_ns = pair(warmup(stb), warmup(sta));

  auto kernel_key = [&](const model::Trace& t) {
    return [&t, &o](size_t i) {
      std::string n = base::Demangle(t.str(t.kernels.name[i]));
      return o.exact_names ? n : NormalizeKernelName(n);
    };
  };
  r.kernels = Match(Group(before.kernels, wb, kernel_key(before)),
                    Group(after.kernels, wa, kernel_key(after)), ib, ia, o.changed_percent);
  bool comparable = true;
  if (!(ib && ia) && !by_period) change = KernelTimePerUnitOfWork(r, o, ib > 0, &comparable);
  if (r.batch.known()) change = PerSampleChange(r, change, o.changed_percent);
  r.not_comparable_reason = NotComparableReason(r, before, after);
  if (!r.not_comparable_reason.empty()) {
    comparable = false;
    r.significant = false;
    r.test = "nothing compared: " + r.not_comparable_reason;
  }
  r.change_percent = change;
  r.verdict_kind = !r.significant ? DiffReport::Verdict::kNoChange
                   : change < 0   ? DiffReport::Verdict::kFaster
                                  : DiffReport::Verdict::kSlower;
  r.verdict = !comparable                                        ? "not comparable"
              : r.verdict_kind == DiffReport::Verdict::kNoChange ? "no significant change"
              : r.verdict_kind == DiffReport::Verdict::kFaster   ? "faster"
                                                                 : "slower";
  auto memop_key = [](const model::Trace& t) {
    return [&t](size_t i) { return std::string(model::MemopKindName(t.memops.kind[i])); };
  };
  r.memops = Match(Group(before.memops, wb, memop_key(before)),
                   Group(after.memops, wa, memop_key(after)), ib, ia, o.changed_percent);
  auto api_key = [](const model::Trace& t) {
    return [&t](size_t i) {
      return t.api.domain[i] == model::ApiDomain::kOs ? std::string()
                                                      : std::string(t.str(t.api.name[i]));
    };
  };
  r.api = Match(Group(before.api, wb, api_key(before)), Group(after.api, wa, api_key(after)), ib,
                ia, o.changed_percent);
  auto cpu_key = [](const model::Trace& t) {
    return [&t](size_t i) {
      return t.cpu.kind[i] == model::CpuRangeKind::kOp ? std::string(t.str(t.cpu.name[i]))
                                                       : std::string();
    };
  };
  r.cpu_ops = Match(Group(before.cpu, wb, cpu_key(before)), Group(after.cpu, wa, cpu_key(after)),
                    ib, ia, o.changed_percent);

  MatchFindings(r, after);
  r.categories = DiffByCategory(before, after, r, o);
  return r;
}

}  // namespace gpuscope::analysis
