#pragma once
// Steady state: which part of a trace is the repeating work whose cost a user wants to cut.
//
// Iterations come, in order of preference, from ProfilerStep#N markers, from a user annotation
// that repeats (the same name at least 3 times on one thread, back to back), or from the period
// of the repeating kernel sequence; without any of these the whole trace is one window.
// Warm-up = the leading iterations that are much slower than the typical one (> 1.5x the median
// of the rest, default) - the first ones hold one-off work (allocations, autotuning, JIT).

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

struct IterationSpan {
  int64_t number = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t end_ns() const { return start_ns + dur_ns; }
};

struct LatencyStats {
  int64_t mean_ns = 0, median_ns = 0, p95_ns = 0, min_ns = 0, max_ns = 0, stddev_ns = 0;
};

struct SteadyState {
  std::string source;  // "ProfilerStep markers", "annotation 'step'", "kernel sequence period 12",
                       // "whole trace"
  std::vector<IterationSpan> iterations;  // all iterations found (warm-up included)
  size_t warmup = 0;                      // leading iterations left out of the steady state
  int64_t start_ns = 0, end_ns = 0;       // the steady window
  LatencyStats latency;                   // over the steady iterations (none: all zero)
  size_t steady_count() const { return iterations.size() - warmup; }
  int64_t window_ns() const { return end_ns - start_ns; }
};

struct SteadyStateOptions {
  double warmup_factor = 1.5;  // an iteration slower than this x the median of the rest is warm-up
  size_t min_repeats = 3;      // annotations / kernel periods must repeat this often
};

SteadyState FindSteadyState(const model::Trace& trace, const SteadyStateOptions& options = {});

LatencyStats Latencies(std::vector<int64_t> durations);

}  // namespace gpuscope::analysis
