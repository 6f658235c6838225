#include "analysis/steps/phase_summary.h"

#include <algorithm>
#include <map>

#include "analysis/common/intervals.h"

namespace gpuscope::analysis {
namespace {

// Calls f(step, start, end, name, is_kernel) for every GPU op launched inside a step.
template <typename F>
void ForEachStepOp(const model::Trace& t, const SteadyState& s, F&& f) {
  auto visit = [&](const model::SliceColumns& ops, const std::vector<model::RowId>& launch,
                   bool kernel) {
    for (size_t i = 0; i < ops.size(); ++i) {
      int step = s.StepAt(LaunchedAt(t, launch[i], ops.start_ns[i]));
      if (step >= 0) f(step, ops.start_ns[i], ops.end_ns(i), ops.name[i], kernel);
    }
  };
  visit(t.kernels, t.kernels.launch, true);
  visit(t.memops, t.memops.launch, false);
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> PhaseIntervals(const model::Trace& t, const SteadyState& s,
                                                        const PhaseSteps& phase) {
  std::vector<int64_t> end(s.iterations.size());
  for (size_t i = 0; i < s.iterations.size(); ++i) end[i] = s.iterations[i].end_ns();
  ForEachStepOp(t, s, [&](int step, int64_t, int64_t e, model::StringId, bool) {
    end[step] = std::max(end[step], e);
  });
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i : phase.steps) out.emplace_back(s.iterations[i].start_ns, end[i]);
  MergeIntervals(out);
  return out;
}

std::string MissingPhaseMessage(const SteadyState& s, const std::string& phase) {
  std::string have;
  for (const auto& x : s.phases) have += (have.empty() ? "" : ", ") + x.name;
  return "no " + phase + " steps in this trace (" +
         (have.empty() ? "its steps have no phases: no serving-step annotations or generate loop "
                         "found"
                       : "phases: " + have) +
         ")";
}

size_t InterleavedSteps(const SteadyState& s, const std::string& phase) {
  const PhaseSteps* p = s.Phase(phase);
  if (!p || p->steps.empty()) return 0;
  const auto [first, last] = std::minmax_element(p->steps.begin(), p->steps.end());
  return *last - *first + 1 - p->steps.size();
}

std::vector<PhaseSummary> SummarisePhases(const model::Trace& t, const SteadyState& s, size_t top) {
  std::vector<PhaseSummary> out;
  if (s.phases.empty()) return out;
  size_t n = s.phases.size();
  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy(n);
  std::vector<std::map<model::StringId, int64_t>> kernel_ns(n);
  ForEachStepOp(t, s, [&](int step, int64_t b, int64_t e, model::StringId name, bool kernel) {
    int p = s.iterations[step].phase;
    if (p < 0 || s.iterations[step].warmup) return;
    busy[p].emplace_back(b, e);
    if (kernel) kernel_ns[p][name] += e - b;
  });
  for (size_t p = 0; p < n; ++p) {
    const PhaseSteps& ph = s.phases[p];
    PhaseSummary x;
    x.name = ph.name, x.evidence = ph.evidence, x.steps = ph.steps.size(), x.warmup = ph.warmup;
    x.latency = ph.latency, x.tokens_per_step = ph.tokens_per_step;
    if (x.tokens_per_step >= 0 && x.latency.median_ns > 0)
      x.tokens_per_second =
          1e9 * static_cast<double>(x.tokens_per_step) / static_cast<double>(x.latency.median_ns);
    MergeIntervals(busy[p]);
    for (const auto& [b, e] : busy[p]) x.gpu_ns += e - b;
    // The steps' spans: each steady step from its host start to the end of its GPU work.
    PhaseSteps steady = ph;
    steady.steps.erase(
        steady.steps.begin(),
        steady.steps.begin() + static_cast<long>(std::min(ph.warmup, ph.steps.size())));
    int64_t span = 0;
    for (const auto& [b, e] : PhaseIntervals(t, s, steady)) span += e - b;
    if (span > 0 && !busy[p].empty())
      x.gpu_busy_pct = 100.0 * static_cast<double>(x.gpu_ns) / static_cast<double>(span);
    std::vector<std::pair<int64_t, model::StringId>> ks;
    for (const auto& [name, ns] : kernel_ns[p]) ks.emplace_back(ns, name);
    std::sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < ks.size() && k < top; ++k)
      x.top_kernels.emplace_back(std::string(t.str(ks[k].second)), ks[k].first);
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace gpuscope::analysis
