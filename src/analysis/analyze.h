#pragma once
// Analyze: the bottlenecks of a trace, each with what it costs, where it comes from and the fix
// (`gpuscope analyze`). Works on the model alone, so every format the importers read is
// analysed the same way. Rule definitions, defaults and impact formulas: rules.cc.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution.h"
#include "analysis/clock_check.h"
#include "analysis/graph_attribution.h"
#include "analysis/health.h"
#include "analysis/phase_summary.h"
#include "analysis/replay_graph.h"
#include "analysis/stalls.h"
#include "analysis/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The analyzer's thresholds. The rules' defaults come from their registry entries (rules.h:
// the constructor applies them), so they are written once, next to the rule.
struct AnalyzeOptions {
  AnalyzeOptions();
  int64_t idle_gap_ns = 0;                 // gpu-idle
  int64_t tiny_kernel_ns = 0;              // launch-bound
  double storm_kernels_per_iteration = 0;  // launch-bound
  double storm_ops_per_iteration = 0;      // cpu-op-storm
  int64_t tiny_op_ns = 0;                  // cpu-op-storm
  int64_t small_copy_bytes = 0;            // small-memcpy
  double small_copies_per_iteration = 0;   // small-memcpy
  double outlier_mads = 0;                 // kernel-outlier
  double attainable_fraction = 0;          // kernel-efficiency
  double hotspot_share = 0;                // kernel-hotspot
  double low_utilization = 0;              // low-utilization
  size_t evidence = 5;                     // instances listed per finding
  double min_impact_percent = 0.1;         // findings below this share of the window are noise
  size_t stalls = 5;                       // largest GPU idle intervals of the trace listed
  SteadyStateOptions steady;
  // Graphs captured in other traces of the same program (`--capture FILE`), to attribute the
  // kernels graphs replay; graphs captured in the analysed trace itself are found anyway.
  std::vector<CapturedGraph> captures;
  // The GPU the trace ran on (`--device`, analysis/device_peaks.h) for kernel-efficiency; "" =
  // what the trace says.
  std::string device;
};

struct Evidence {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t iteration = -1;  // number of the iteration it fell in; -1 outside / none
  std::string what;
};

struct Finding {
  std::string rule;
  std::string severity;  // high, medium, low, info
  std::string title;
  // The window time this fix saves, priced by replaying the run's dependencies with the fix
  // applied. Findings are priced in order of their own saving, each on top of the fixes before
  // it and capped at its own saving, so that two findings never claim the same time and the
  // impacts add up to at most "combined" (fixes together may save more than their sum).
  int64_t impact_ns = 0;
  double impact_percent = 0;  // of the steady window
  int64_t standalone_ns = 0;  // the saving of this fix alone (replayed)
  std::string fix;            // what the replay changed to price it ("" for information)
  // The pricing, for `--explain` and the JSON: the replayed window without and with this fix
  // alone, and the edits it made (counts).
  int64_t baseline_ns = 0, fixed_ns = 0;
  std::string changes;
  Where where;
  std::vector<Evidence> evidence;
  std::string detail;  // one line of measured facts (counts, bytes, per-iteration rates)
  std::string advice;
};

// Idle time of the GPUs in the steady window, by what the host was doing.
struct IdleCause {
  std::string cause;
  int64_t ns = 0;
  uint64_t gaps = 0;
};

struct AnalysisSummary {
  int64_t wall_ns = 0;          // whole trace span
  int64_t window_ns = 0;        // steady window
  int64_t kernel_ns = 0;        // kernel time in the window (summed over kernels)
  int64_t memcpy_ns = 0;        // copy + memset time in the window
  int64_t api_ns = 0;           // runtime/driver call time in the window
  int devices = 0;              // GPUs with work
  double gpu_busy_pct = -1;     // steady-window share with GPU work (-1: no GPU work)
  std::string verdict;          // "GPU-bound", "CPU-bound", "CPU only", ...
  std::vector<IdleCause> idle;  // idle split (gaps of any length), largest first
  std::string host_pinning;     // "known" or why copies' pinning is unknown
  // The replay of the window's dependencies (replay_graph.h).
  int64_t observed_ns = 0;                 // the window as observed over the replayed events
  int64_t replayed_ns = 0;                 // the unchanged graph replayed
  double replay_error_percent = 0;         // |replayed - observed| / observed
  uint64_t inferred_waits = 0;             // host calls found waiting for GPU work
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
  std::vector<Finding> findings;   // by impact, largest first; information last
};

AnalysisReport Analyze(const model::Trace& trace, const AnalyzeOptions& options = {});

}  // namespace gpuscope::analysis
