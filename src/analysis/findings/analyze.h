#pragma once
// Analyze: the bottlenecks of a trace, each with what it costs, where it comes from and the fix
// (`gpuscope analyze`). Works on the model alone, so every format the importers read is
// analysed the same way. Rule definitions, defaults and pricing: one file per rule in rules/,
// listed in registry.cc.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/findings/finding.h"
#include "analysis/findings/verdict.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/stats/stats.h"
#include "analysis/steps/phase_summary.h"
#include "analysis/steps/steady_state.h"
#include "analysis/timeline/clock_check.h"
#include "analysis/timeline/health.h"
#include "analysis/timeline/stalls.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// Idle time of the GPUs in the steady window, by what the host was doing.
struct IdleCause {
  std::string cause;
  int64_t ns = 0;
  uint64_t gaps = 0;
};

struct AnalysisSummary {
  int64_t wall_ns = 0;       // whole trace span
  int64_t window_ns = 0;     // steady window
  int64_t kernel_ns = 0;     // kernel time in the window (summed over kernels)
  int64_t memcpy_ns = 0;     // copy + memset time in the window
  int64_t api_ns = 0;        // runtime/driver call time in the window
  int devices = 0;           // GPUs with work
  double gpu_busy_pct = -1;  // steady-window share with GPU work (-1: no GPU work)
  // The host's synchronizing calls that overlap the window (their union, whole, less its one-time
  // costs) and the GPU's busy time in it (all devices): a window whose waits exceed its work by
  // 2x is never GPU-bound.
  int64_t host_wait_ns = 0, gpu_work_ns = 0;
  std::string verdict;  // the verdict's sentence, with the trace's figures
  VerdictKind verdict_kind = VerdictKind::kCpuOnly;  // what it says (verdict.h)
  std::vector<IdleCause> idle;  // idle split (gaps of any length), largest first
  std::string host_pinning;     // "known" or why copies' pinning is unknown
  // The window's GPU time by kernel category (memory operations as copy), largest first.
  std::vector<CategoryStat> categories;
  // The replay of the window's dependencies (replay_graph.h).
  int64_t observed_ns = 0;                 // the window as observed over the replayed events
  int64_t replayed_ns = 0;                 // the unchanged graph replayed
  double replay_error_percent = 0;         // |replayed - observed| / observed
  uint64_t inferred_waits = 0;             // host calls and gaps found waiting for GPU work
  uint64_t inferred_polls = 0;             // of those, gaps without a call (untraced waits)
  uint64_t inferred_stream_waits = 0;      // GPU ops found waiting for another stream's op
  uint64_t recorded_stream_waits = 0;      // ... as the trace records it (event waits)
  int64_t combined_ns = 0;                 // replayed window with every reported fix applied
  int64_t combined_saving_ns = 0;          // replayed - combined
  std::vector<PathShare> critical_path;    // composition of the replayed critical path
  std::vector<PathPlace> critical_places;  // where on it the time goes
};

struct AnalysisReport {
  SteadyState steady;
  std::vector<PhaseSummary> phases;  // per phase of a serving trace (empty: no phases)
  std::vector<Stall> stalls;         // largest GPU idle intervals of the whole trace
  GraphAttribution graphs;           // how graph-replayed kernels were attributed
  ClockCheck clocks;                 // launch-to-start sanity per device (clock_check.h)
  AnalysisSummary summary;
  std::vector<HealthNote> health;  // how the trace was recorded (health.h)
  std::vector<Finding> findings;   // by standalone saving, largest first; information last
  // Findings whose fix saves less than the minimum impact (not listed): the problem is still
  // there, priced under the threshold (diff says so instead of "resolved").
  std::vector<Finding> under_threshold;
};

AnalysisReport Analyze(const model::Trace& trace, const AnalyzeOptions& options = {});
// The same with the trace's steps found before (FindSteps(trace, options.steady)), for a caller
// that needed them first (to check --phase).
AnalysisReport Analyze(const model::Trace& trace, const AnalyzeOptions& options,
                       const SteadyState& steps);

// The fixes analyze prices for `rules`' findings in the steady window of `steps` (ChooseWindow),
// every finding of those rules merged: what `whatif --fix RULE...` replays. Empty when they find
// nothing there. The rules run once, in registry order, as in Analyze (earlier ones claim events).
WhatIf FixOf(const model::Trace& trace, const AnalyzeOptions& options, const SteadyState& steps,
             const std::vector<std::string>& rules);

}  // namespace gpuscope::analysis
