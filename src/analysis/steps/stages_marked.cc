// The stages of a window whose steps the program marked (stages.h, MarkedStepStages): the
// markers are the steps, whatever the kernels of each step (a step whose kernels vary - an
// activation-checkpointed resnet's - repeats no block of names at one period).

#include <algorithm>

#include "analysis/common/median.h"
#include "analysis/steps/stages.h"
#include "analysis/steps/steady_state.h"

namespace gpuscope::analysis {

std::vector<Stage> MarkedStepStages(const model::Trace& t, int64_t start, int64_t end,
                                    size_t min_repeats) {
  std::vector<int64_t> marks;
  for (const auto& it : t.iterations)
    if (it.start_ns >= start && it.start_ns < end) marks.push_back(it.start_ns);
  std::sort(marks.begin(), marks.end());
  if (marks.empty() || marks.size() < min_repeats) return {};
  // Kernels by the time of the call that launched them: before the first marker, and per step.
  const auto& k = t.kernels;
  std::vector<size_t> per_step(marks.size(), 0);
  size_t before = 0;
  int64_t last_end = marks.back();
  for (size_t i = 0; i < k.size(); ++i) {
    const int64_t at = LaunchedAt(t, k.launch[i], k.start_ns[i]);
    if (at < start || at >= end) continue;
    last_end = std::max(last_end, k.end_ns(i));
    auto step = std::upper_bound(marks.begin(), marks.end(), at);
    if (step == marks.begin()) {
      ++before;
    } else {
      ++per_step[static_cast<size_t>(step - marks.begin()) - 1];
    }
  }
  if (end == INT64_MAX) end = last_end;  // an unbounded window: to the last kernel's end
  std::vector<Stage> out;
  const int64_t first = std::max(start, marks.front());
  if (before > 0 && first > start && start != INT64_MIN)
    out.push_back({StageKind::kOnce, "prefix", "", before, 1, start, first - start});
  Stage steps{StageKind::kSteps,
              "",
              "a step marker",
              UpperMedian(per_step),
              marks.size(),
              first,
              std::max<int64_t>(0, end - first)};
  steps.label = std::to_string(steps.repeats) + " x step";
  out.push_back(std::move(steps));
  return out;
}

}  // namespace gpuscope::analysis
