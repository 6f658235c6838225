#include "analysis/steady_state.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace gpuscope::analysis {
namespace {

// "step 12", "iter#3", "decode_7" -> "step #", "iter#", "decode_#": one loop's numbered markers.
std::string LoopName(std::string_view n) {
  size_t e = n.size();
  while (e > 0 && n[e - 1] >= '0' && n[e - 1] <= '9') --e;
  std::string out(n.substr(0, e));
  if (e < n.size()) out += "#";
  return out;
}

// A user annotation that repeats back to back on one thread (same name, or the same name with a
// running number): the loop body marked by the user.
std::vector<IterationSpan> RepeatedAnnotation(const model::Trace& t, size_t min_repeats,
                                              std::string* name) {
  const auto& cpu = t.cpu;
  std::map<std::pair<std::string, model::TrackId>, std::vector<size_t>> groups;
  std::unordered_map<model::StringId, std::string> loop_names;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.kind[i] != model::CpuRangeKind::kAnnotation || cpu.depth[i] > 1) continue;
    auto [it, inserted] = loop_names.emplace(cpu.name[i], std::string());
    if (inserted) it->second = LoopName(t.str(cpu.name[i]));
    groups[{it->second, cpu.track[i]}].push_back(i);
  }
  const std::vector<size_t>* best = nullptr;
  int64_t best_total = 0;
  for (const auto& [key, rows] : groups) {
    if (rows.size() < min_repeats) continue;
    bool disjoint = true;
    int64_t total = 0;
    for (size_t k = 0; k < rows.size(); ++k) {
      total += cpu.dur_ns[rows[k]];
      if (k && cpu.start_ns[rows[k]] < cpu.end_ns(rows[k - 1])) disjoint = false;
    }
    if (disjoint && total > best_total) best = &rows, best_total = total, *name = key.first;
  }
  std::vector<IterationSpan> out;
  if (!best) return out;
  for (size_t k = 0; k < best->size(); ++k)
    out.push_back({static_cast<int64_t>(k), cpu.start_ns[(*best)[k]], cpu.dur_ns[(*best)[k]]});
  return out;
}

// The smallest period p of the kernel-name sequence (every kernel equal to the one p before it,
// for at least 90% of the sequence, and >= min_repeats periods). Iteration k starts at the
// kernel k * p (offset to the first occurrence of the period's first kernel).
std::vector<IterationSpan> KernelPeriod(const model::Trace& t, size_t min_repeats, size_t* period) {
  const auto& k = t.kernels;
  std::vector<IterationSpan> out;
  size_t n = k.size();
  if (n < 2 * min_repeats) return out;
  for (size_t p = 1; p <= n / min_repeats && p <= 4096; ++p) {
    // Try the largest suffix-aligned run: warm-up kernels at the start may not repeat.
    size_t match = 0;
    for (size_t i = p; i < n; ++i) match += k.name[i] == k.name[i - p];
    if (match < (n - p) * 9 / 10) continue;
    // A period of one repeated name says nothing about the loop (any multiple fits): skip it.
    std::unordered_set<model::StringId> distinct(k.name.begin(),
                                                 k.name.begin() + static_cast<long>(p));
    if (distinct.size() < 2) {
      bool all_same = true;
      for (size_t i = 1; i < n && all_same; ++i) all_same = k.name[i] == k.name[0];
      if (all_same) return out;
      continue;
    }
    *period = p;
    for (size_t s = 0; s + p <= n; s += p) {
      int64_t start = k.start_ns[s];
      int64_t end = 0;
      if (s + p < n) {
        end = k.start_ns[s + p];  // up to the next iteration's first kernel
      } else {
        for (size_t i = s; i < n; ++i) end = std::max(end, k.end_ns(i));
      }
      out.push_back({static_cast<int64_t>(out.size()), start, end - start});
    }
    return out;
  }
  return out;
}

}  // namespace

LatencyStats Latencies(std::vector<int64_t> d) {
  LatencyStats s;
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  size_t n = d.size();
  long double sum = 0;
  for (int64_t v : d) sum += v;
  s.mean_ns = static_cast<int64_t>(sum / n);
  s.median_ns = n % 2 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
  s.p95_ns = d[std::min(n - 1, static_cast<size_t>(std::ceil(0.95 * n)) - 1)];
  s.min_ns = d.front();
  s.max_ns = d.back();
  if (n > 1) {
    long double var = 0;
    for (int64_t v : d) var += (v - sum / n) * (v - sum / n);
    s.stddev_ns = static_cast<int64_t>(std::sqrt(static_cast<double>(var / (n - 1))));
  }
  return s;
}

SteadyState FindSteadyState(const model::Trace& t, const SteadyStateOptions& o) {
  SteadyState s;
  if (!t.iterations.empty()) {
    s.source = "ProfilerStep markers";
    for (const auto& it : t.iterations) s.iterations.push_back({it.number, it.start_ns, it.dur_ns});
  } else {
    std::string name;
    s.iterations = RepeatedAnnotation(t, o.min_repeats, &name);
    if (!s.iterations.empty()) {
      s.source = "repeated annotation '" + name + "'";
    } else {
      size_t period = 0;
      s.iterations = KernelPeriod(t, o.min_repeats, &period);
      if (!s.iterations.empty()) s.source = "kernel sequence period " + std::to_string(period);
    }
  }
  if (s.iterations.empty()) {
    // No loop found: the window is the span of GPU work (start-up before the first kernel,
    // such as module loading, is not what the user runs), or the whole trace without GPU work.
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < t.kernels.size(); ++i)
      first = std::min(first, t.kernels.start_ns[i]), last = std::max(last, t.kernels.end_ns(i));
    for (size_t i = 0; i < t.memops.size(); ++i)
      first = std::min(first, t.memops.start_ns[i]), last = std::max(last, t.memops.end_ns(i));
    if (first < last) {
      s.source =
          "span of GPU work (no iterations found: no ProfilerStep#N, repeated annotation or kernel "
          "period)";
      s.start_ns = first, s.end_ns = last;
    } else {
      auto [lo, hi] = t.TimeSpan();
      s.source =
          "whole trace (no iterations found: no ProfilerStep#N, repeated annotation or kernel "
          "period)";
      s.start_ns = lo, s.end_ns = hi;
    }
    return s;
  }
  // Warm-up: leading iterations much slower than the median of the ones after them.
  std::vector<int64_t> d;
  for (const auto& it : s.iterations) d.push_back(it.dur_ns);
  while (s.warmup + 2 <= s.iterations.size()) {
    std::vector<int64_t> rest(d.begin() + static_cast<long>(s.warmup) + 1, d.end());
    std::nth_element(rest.begin(), rest.begin() + static_cast<long>(rest.size() / 2), rest.end());
    int64_t med = rest[rest.size() / 2];
    if (static_cast<double>(d[s.warmup]) > o.warmup_factor * static_cast<double>(med))
      ++s.warmup;
    else
      break;
  }
  s.start_ns = s.iterations[s.warmup].start_ns;
  s.end_ns = s.iterations.back().end_ns();
  s.latency = Latencies(std::vector<int64_t>(d.begin() + static_cast<long>(s.warmup), d.end()));
  return s;
}

}  // namespace gpuscope::analysis
