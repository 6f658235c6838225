#include "analysis/steps/steady_state.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

#include "analysis/steps/step_sources.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

using internal::StepSource;

// Leading steps of one group much slower than the median of the ones after them.
size_t Warmup(const std::vector<int64_t>& d, double factor) {
  size_t warmup = 0;
  while (warmup + 2 <= d.size()) {
    std::vector<int64_t> rest(d.begin() + static_cast<long>(warmup) + 1, d.end());
    std::nth_element(rest.begin(), rest.begin() + static_cast<long>(rest.size() / 2), rest.end());
    if (static_cast<double>(d[warmup]) > factor * static_cast<double>(rest[rest.size() / 2]))
      ++warmup;
    else
      break;
  }
  return warmup;
}

// Phase of each step: its own serving label, else a serving annotation that starts inside it.
void LabelSteps(const model::Trace& t, const std::vector<internal::StepSpan>& spans,
                std::vector<IterationSpan>& steps, std::vector<std::string>& phase_of) {
  std::vector<std::pair<int64_t, internal::ServingLabel>> inner;
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != model::CpuRangeKind::kAnnotation) continue;
    internal::ServingLabel l = internal::ParseServingLabel(t.str(t.cpu.name[i]));
    if (l.serving) inner.emplace_back(t.cpu.start_ns[i], l);
  }
  std::sort(inner.begin(), inner.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t s = 0; s < spans.size(); ++s) {
    internal::ServingLabel l = internal::ParseServingLabel(spans[s].label);
    if (l.phase.empty()) {
      auto it = std::lower_bound(inner.begin(), inner.end(), spans[s].start_ns,
                                 [](const auto& e, int64_t v) { return e.first < v; });
      for (; it != inner.end() && it->first < spans[s].start_ns + spans[s].dur_ns; ++it) {
        if (!it->second.phase.empty()) {
          l = it->second;
          break;
        }
      }
    }
    phase_of[s] = l.phase;
    steps[s].tokens = l.tokens;
  }
}

void BuildPhases(SteadyState& s, const std::vector<std::string>& phase_of, bool by_shape,
                 double factor) {
  bool any = std::any_of(phase_of.begin(), phase_of.end(), [](auto& p) { return !p.empty(); });
  auto add = [&](const std::string& name, const std::string& evidence) -> int {
    for (size_t p = 0; p < s.phases.size(); ++p)
      if (s.phases[p].name == name) return static_cast<int>(p);
    s.phases.push_back({name, evidence, {}, 0, {}, -1});
    return static_cast<int>(s.phases.size() - 1);
  };
  if (any) {
    for (size_t i = 0; i < s.iterations.size(); ++i)
      s.iterations[i].phase = add(phase_of[i].empty() ? "other" : phase_of[i], "annotation");
  } else if (by_shape && s.iterations.size() >= 3) {
    // A generate loop: one long pass over the prompt, then short passes of one token each.
    std::vector<int64_t> rest;
    for (size_t i = 1; i < s.iterations.size(); ++i) rest.push_back(s.iterations[i].dur_ns);
    std::nth_element(rest.begin(), rest.begin() + static_cast<long>(rest.size() / 2), rest.end());
    if (s.iterations[0].dur_ns > 2 * rest[rest.size() / 2]) {
      for (size_t i = 0; i < s.iterations.size(); ++i)
        s.iterations[i].phase = add(i == 0 ? "prefill" : "decode", "shape of the work");
    }
  }
  for (size_t i = 0; i < s.iterations.size(); ++i)
    if (s.iterations[i].phase >= 0) s.phases[s.iterations[i].phase].steps.push_back(i);
  for (auto& ph : s.phases) {
    std::vector<int64_t> d;
    int64_t tokens = 0, counted = 0;
    for (size_t i : ph.steps) {
      d.push_back(s.iterations[i].dur_ns);
      if (s.iterations[i].tokens >= 0) tokens += s.iterations[i].tokens, ++counted;
    }
    ph.warmup = Warmup(d, factor);
    for (size_t k = 0; k < ph.warmup; ++k) s.iterations[ph.steps[k]].warmup = true;
    ph.latency = Latencies(std::vector<int64_t>(d.begin() + static_cast<long>(ph.warmup), d.end()));
    if (counted) ph.tokens_per_step = tokens / counted;
  }
}

// A step runs from its start to the next step's start: an annotation around the model's forward
// leaves out the scheduling and sampling between forwards, which are part of the step period.
// A gap longer than the median step and than the step itself is the program waiting (a server
// without requests), not a part of the step, and stays out; a prefill step's scheduling and
// sampling after its long forward are part of it, however short the decode steps around it.
// ProfilerStep#N ranges already run from one step() to the next.
void RunToNextStart(StepSource& found) {
  auto& spans = found.spans;
  if (spans.size() < 2) return;
  std::vector<int64_t> d;
  for (const auto& s : spans) d.push_back(s.dur_ns);
  std::nth_element(d.begin(), d.begin() + static_cast<long>(d.size() / 2), d.end());
  int64_t median = d[d.size() / 2];
  bool extended = false;
  for (size_t i = 0; i + 1 < spans.size(); ++i) {
    int64_t gap = spans[i + 1].start_ns - (spans[i].start_ns + spans[i].dur_ns);
    if (gap <= 0 || gap > std::max(median, spans[i].dur_ns) || spans[i + 1].track != spans[i].track)
      continue;
    spans[i].dur_ns = spans[i + 1].start_ns - spans[i].start_ns;
    extended = true;
  }
  if (extended) found.source += "; a step runs to the next one's start";
}

}  // namespace

std::string KernelStructure::text() const {
  if (!block) return "";
  return std::to_string(repeats) + " repeats of a " + std::to_string(block) + "-kernel block";
}

const PhaseSteps* SteadyState::Phase(std::string_view name) const {
  for (const auto& p : phases)
    if (p.name == name) return &p;
  return nullptr;
}

int SteadyState::StepAt(int64_t ts) const {
  auto it = std::upper_bound(iterations.begin(), iterations.end(), ts,
                             [](int64_t v, const IterationSpan& x) { return v < x.start_ns; });
  if (it == iterations.begin()) return -1;
  --it;
  return ts < it->end_ns() ? static_cast<int>(it - iterations.begin()) : -1;
}

KernelStructure FindKernelStructure(const model::Trace& t, int64_t start, int64_t end,
                                    size_t min_repeats) {
  // At most this many kernels are read: the first of a step show its structure.
  constexpr size_t kMaxKernels = 20000;
  // A kernel belongs to the step that launched it (the GPU may run it after the step's end).
  std::vector<model::StringId> names;
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size() && names.size() < kMaxKernels; ++i) {
    int64_t at = LaunchedAt(t, k.launch[i], k.start_ns[i]);
    if (at >= start && at < end) names.push_back(k.name[i]);
  }
  KernelStructure s;
  s.block = internal::KernelPeriod(names, min_repeats);
  if (s.block) {
    // Repeats: how often a kernel that runs once per block runs in the step (the most common
    // count over the block's kernels that occur once in it: a layer's attention kernel).
    // The block is read where the repetition is longest (kernels before the layers differ).
    size_t run = 0, longest = 0, at = 0;
    for (size_t i = s.block; i < names.size(); ++i) {
      run = names[i] == names[i - s.block] ? run + 1 : 0;
      if (run > longest) longest = run, at = i + 1 - run - s.block;
    }
    std::unordered_map<model::StringId, size_t> in_block, total;
    for (size_t i = at; i < at + s.block; ++i) ++in_block[names[i]];
    for (auto n : names) ++total[n];
    std::unordered_map<size_t, size_t> votes;
    for (const auto& [n, c] : in_block)
      if (c == 1) ++votes[total[n]];
    size_t best = 0;
    for (const auto& [count, v] : votes)
      if (v > best || (v == best && count > s.repeats)) best = v, s.repeats = count;
    if (!best) s.repeats = names.size() / s.block;
  }
  return s;
}

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

SteadyState FindSteps(const model::Trace& t, const SteadyStateOptions& o) {
  SteadyState s;
  StepSource found;
  bool python_loop = false;
  if (!t.iterations.empty()) {
    found.source = "ProfilerStep markers";
    for (const auto& it : t.iterations) {
      std::string label =
          it.marker != model::kNoRow ? std::string(t.str(t.cpu.name[it.marker])) : std::string();
      found.spans.push_back({it.start_ns, it.dur_ns, label, 0});
    }
  } else {
    internal::WorkIndex launches(t);
    found = internal::ServingSteps(t, launches);
    if (found.spans.empty()) found = internal::RepeatedAnnotationSteps(t, launches, o.min_repeats);
    if (found.spans.empty()) {
      found = internal::PythonLoopSteps(t, launches, o.min_repeats);
      python_loop = !found.spans.empty();
    }
    if (found.spans.empty()) found = internal::BlockSteps(t, INT64_MIN, INT64_MAX, o.min_repeats);
  }
  if (found.spans.empty()) {
    // One step: the span of GPU work (start-up before the first kernel, such as module loading,
    // is not what the user runs), or the whole trace without GPU work. Nothing in it is warm-up.
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < t.kernels.size(); ++i)
      first = std::min(first, t.kernels.start_ns[i]), last = std::max(last, t.kernels.end_ns(i));
    for (size_t i = 0; i < t.memops.size(); ++i)
      first = std::min(first, t.memops.start_ns[i]), last = std::max(last, t.memops.end_ns(i));
    const char* why =
        " (no steps marked: no ProfilerStep#N, serving-step or repeated annotation, or repeated "
        "Python frame)";
    if (first < last) {
      s.source = std::string("span of GPU work as one step") + why;
      s.start_ns = first, s.end_ns = last;
    } else {
      auto [lo, hi] = t.TimeSpan();
      s.source = std::string("whole trace as one step") + why;
      s.start_ns = lo, s.end_ns = hi;
    }
    // Every kernel is in the one step, those launched before the first GPU op starts too.
    s.structure = FindKernelStructure(t, INT64_MIN, INT64_MAX, o.min_repeats);
    s.stages = FindStages(t, s.start_ns, s.end_ns, o.min_repeats);
    return s;
  }
  std::sort(found.spans.begin(), found.spans.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  if (found.source != "ProfilerStep markers") RunToNextStart(found);
  s.source = found.source;
  for (size_t i = 0; i < found.spans.size(); ++i) {
    int64_t number =
        found.source == "ProfilerStep markers" ? t.iterations[i].number : static_cast<int64_t>(i);
    s.iterations.push_back({number, found.spans[i].start_ns, found.spans[i].dur_ns});
  }
  std::vector<std::string> phase_of(s.iterations.size());
  LabelSteps(t, found.spans, s.iterations, phase_of);
  BuildPhases(s, phase_of, python_loop, o.warmup_factor);
  return s;
}

std::string SteadyState::WindowText() const {
  if (one_time.empty()) return "the whole window (no one-time cost found in it)";
  return "steady part: " + base::FormatDuration(steady_ns()) + " after " + one_time.Text() +
         " (one-time, left out)";
}

namespace {

// The steady window of found steps: warm-up steps left out, latency, structure.
void CutWindow(const model::Trace& t, SteadyState& s, const SteadyStateOptions& o) {
  if (const PhaseSteps* only = o.phase.empty() ? nullptr : s.Phase(o.phase)) {
    // One phase analysed alone: its steps are the steps (a window over interleaved phases also
    // holds the others' time; serving traces run them in blocks).
    PhaseSteps kept = *only;
    std::vector<IterationSpan> steps;
    for (size_t k = 0; k < kept.steps.size(); ++k) {
      steps.push_back(s.iterations[kept.steps[k]]);
      steps.back().phase = 0;
      kept.steps[k] = k;
    }
    s.iterations = std::move(steps);
    s.phases = {std::move(kept)};
    s.source += ", " + o.phase + " steps only";
  }
  if (s.phases.empty()) {
    std::vector<int64_t> d;
    for (const auto& it : s.iterations) d.push_back(it.dur_ns);
    size_t w = Warmup(d, o.warmup_factor);
    for (size_t k = 0; k < w; ++k) s.iterations[k].warmup = true;
  }
  while (s.warmup < s.iterations.size() && s.iterations[s.warmup].warmup) ++s.warmup;
  if (s.warmup == s.iterations.size()) s.warmup = 0;  // never an empty window
  s.start_ns = s.iterations[s.warmup].start_ns;
  for (size_t i = s.warmup; i < s.iterations.size(); ++i)
    s.end_ns = std::max(s.end_ns, s.iterations[i].end_ns());
  // The steps' GPU work is part of the window: it may run after the host's last step ended.
  int64_t host_end = s.end_ns;
  auto extend = [&](const model::SliceColumns& ops, const std::vector<model::RowId>& launch) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (launch[i] == model::kNoRow) continue;
      int64_t at = t.api.start_ns[launch[i]];
      if (at >= s.start_ns && at < host_end) s.end_ns = std::max(s.end_ns, ops.end_ns(i));
    }
  };
  extend(t.kernels, t.kernels.launch);
  extend(t.memops, t.memops.launch);
  std::vector<int64_t> d;
  for (size_t i = s.warmup; i < s.iterations.size(); ++i)
    if (!s.iterations[i].warmup) d.push_back(s.iterations[i].dur_ns);
  s.latency = Latencies(d);
  const IterationSpan& first = s.iterations[s.warmup];
  s.structure = FindKernelStructure(t, first.start_ns, first.end_ns(), o.min_repeats);
  s.stages = FindStages(t, s.start_ns, s.end_ns, o.min_repeats);
}

}  // namespace

SteadyState ChooseWindow(const model::Trace& t, SteadyState s, const SteadyStateOptions& o) {
  // One step, the span of work, is already its own window.
  if (!s.iterations.empty()) CutWindow(t, s, o);
  s.one_time = FindOneTime(t, s.start_ns, s.end_ns, s.iterations.empty());
  return s;
}

SteadyState FindSteadyState(const model::Trace& t, const SteadyStateOptions& o) {
  return ChooseWindow(t, FindSteps(t, o), o);
}

}  // namespace gpuscope::analysis
