#pragma once
// Analyze: the bottlenecks of a trace, each with what it costs, where it comes from and the fix
// (`gpuscope analyze`). Works on the model alone, so every format the importers read is
// analysed the same way. Rule definitions, defaults and impact formulas: rules.cc.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution.h"
#include "analysis/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct AnalyzeOptions {
  int64_t idle_gap_ns = 20'000;
  int64_t tiny_kernel_ns = 10'000;
  double storm_ops_per_iteration = 50;
  int64_t tiny_op_ns = 50'000;
  int64_t small_copy_bytes = 64 << 10;
  double small_copies_per_iteration = 8;
  double outlier_mads = 5;
  double hotspot_share = 0.10;
  double low_utilization = 0.50;
  size_t evidence = 5;              // instances listed per finding
  double min_impact_percent = 0.1;  // findings below this share of the window are noise
  SteadyStateOptions steady;
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
  int64_t impact_ns = 0;
  double impact_percent = 0;  // of the steady window
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
};

struct AnalysisReport {
  SteadyState steady;
  AnalysisSummary summary;
  std::vector<Finding> findings;  // by impact, largest first; information last
};

AnalysisReport Analyze(const model::Trace& trace, const AnalyzeOptions& options = {});

}  // namespace gpuscope::analysis
