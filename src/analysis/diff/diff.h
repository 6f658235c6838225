#pragma once
// Diff: two runs compared - the summary side by side with a significance test on iteration
// times, kernels / copies / API calls / CPU ops matched by (normalised) name, and the findings
// resolved, persisting or new (`gpuscope diff BEFORE AFTER`). The runs may come from different
// tools: everything is read from the common model.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diff/batch_ratio.h"
#include "analysis/findings/analyze.h"
#include "analysis/stats/stats.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct DiffOptions {
  bool exact_names = false;    // match kernels by their exact names (no normalisation)
  double changed_percent = 5;  // a row whose total moved less than this is "same"
  AnalyzeOptions analyze;
};

// One metric before and after.
struct Pair {
  double before = 0, after = 0;
  double change_percent() const {
    return before != 0 ? 100.0 * (after - before) / before : (after != 0 ? 100.0 : 0.0);
  }
};

struct NamedDiff {
  std::string name;
  std::string status;  // same, changed, added, removed
  uint64_t calls_before = 0, calls_after = 0;
  int64_t total_before = 0, total_after = 0;
  double calls_per_iteration_before = -1, calls_per_iteration_after = -1;  // -1: no iterations
  int64_t delta() const { return total_after - total_before; }
};

// One kernel category's GPU time before and after (memory operations as copy), with the kernels
// whose change moved it most.
struct CategoryDiff {
  KernelCategory category = KernelCategory::kOther;
  uint64_t calls_before = 0, calls_after = 0;
  int64_t total_before = 0, total_after = 0;
  std::vector<NamedDiff> top;  // its rows of DiffReport::kernels by |delta|, at most 3
  int64_t delta() const { return total_after - total_before; }
};

// A finding's status across the two runs (FindingDiff::status), in the order they are listed.
inline constexpr std::string_view kResolved = "resolved";  // gone from the after run
// gone from the after run's steady steps but its op still runs in its warm-up (moved, not removed)
inline constexpr std::string_view kMovedToWarmup = "moved to warm-up";
// still found in the after run, its fix priced under the minimum impact: not resolved
inline constexpr std::string_view kStillPresent = "still present (under the threshold)";
inline constexpr std::string_view kPersisting = "persisting";
inline constexpr std::string_view kNew = "new";
inline constexpr std::string_view kFindingStatuses[] = {kResolved, kMovedToWarmup, kStillPresent,
                                                        kPersisting, kNew};

struct FindingDiff {
  std::string status;  // one of kFindingStatuses
  std::string rule, title;
  int64_t impact_before = 0, impact_after = 0;
  Where where;
};

// One stage of each run (steps/stages.h), paired in order by kind: indices into each run's
// stages, -1 where one run has no such stage.
struct StagePair {
  int before = -1, after = -1;
};
std::vector<StagePair> PairStages(const std::vector<Stage>& before,
                                  const std::vector<Stage>& after);

struct DiffReport {
  AnalysisReport before, after;
  Pair wall_ns, iterations, iteration_mean_ns, iteration_median_ns, iteration_p95_ns, gpu_busy_pct,
      kernel_ns, memcpy_ns, api_ns, copy_bytes;
  std::string test;                            // which test decided, in words
  double p_value = -1;                         // of the rank test; -1 when none ran
  size_t tested_before = 0, tested_after = 0;  // the steady steps the test compared
  bool significant = false;
  enum class Verdict { kNoChange, kFaster, kSlower };
  enum class Basis { kIterationLatency, kKernelTime };
  Verdict verdict_kind = Verdict::kNoChange;
  Basis basis_kind = Basis::kKernelTime;
  double change_percent = 0;  // of the basis: mean iteration latency, else total kernel time
  std::string verdict;        // in words: "faster", "slower", "no significant change"
  std::string
      basis;  // in words: "per-iteration latency" or "total GPU kernel time (no iterations)"
  std::vector<NamedDiff> kernels, memops, api, cpu_ops;
  // Every category with time in either run, by |delta| (largest first).
  std::vector<CategoryDiff> categories;
  std::vector<FindingDiff> findings;
  // Why the runs cannot be compared (comparability.h); "" when they can. Set: the verdict is
  // "not comparable", nothing is called faster or slower.
  std::string not_comparable_reason;
  // Without marked steps: kernels per iteration period found from the kernels' repeats
  // (steps/kernel_period.h), each side; 0 when none was found or steps are marked.
  size_t period_kernels_before = 0, period_kernels_after = 0;
  // The warm-up steps' total time on each side, compared apart from the steady steps.
  Pair warmup_ns;
  std::vector<StagePair> stages;  // before.steady.stages with after.steady.stages
  // The runs' batch sizes from their recorded shapes; when known, the verdict's change and test
  // are per sample (the after run's times divided by batch.ratio).
  BatchRatio batch;
};

DiffReport Diff(const model::Trace& before, const model::Trace& after,
                const DiffOptions& options = {});

// `change` (percent, of the basis) per sample when r.batch is known (batch_ratio.cc): the after
// run's figure divided by the batch ratio; says so in r.basis, and judges a kernel-time basis
// again against changed_percent (the iteration test already ran per sample).
double PerSampleChange(DiffReport& r, double change, double changed_percent);

// "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, ...)" ->
// "at::native::vectorized_elementwise_kernel<>": template arguments, parameters, return type and
// numeric/hash suffixes of generated kernels (triton_poi_fused_add_3) folded, so that one kernel
// compiled twice still matches.
std::string NormalizeKernelName(std::string_view demangled);

// The categories of a report's kernel and memory-operation rows (`rules`; diff's kernel names
// as Diff keys them: normalised unless exact_names).
std::vector<CategoryDiff> DiffByCategory(const model::Trace& before, const model::Trace& after,
                                         const DiffReport& r, const DiffOptions& options);

// Two-sided Mann-Whitney U test (normal approximation with tie correction): the p-value.
double MannWhitneyP(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace gpuscope::analysis
