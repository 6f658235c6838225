#pragma once
// Steady state: the steps of a trace, their phases, and which part of it is the repeating work
// whose cost a user wants to cut.
//
// Steps come, in order of preference, from what the frameworks annotate:
//   1. ProfilerStep#N markers;
//   2. serving-step annotations (vLLM `execute_<n>_context_<c>(...)_generation_<g>(...)`, SGLang
//      `step[DECODE ...]` / `step[EXTEND ...]` / `step[PREFILL ...]`), even a single one;
//   3. another user annotation that repeats (the same name, or the name with a running number,
//      at least min_repeats times back to back on one thread) and encloses GPU launches when the
//      trace has any;
//   4. a repeated Python frame of the serving loop (the shallowest frame that repeats at least
//      min_repeats times on one thread, each instance launching GPU work, together launching
//      most of it; in a trace without GPU launches - a CPU-only run - each instance running CPU
//      ops, together most of the CPU ops' time);
//   5. kernel blocks the host splits (step_sources.h, BlockSteps): a data-loader call, a
//      synchronization or a new graph launch between blocks of alike kernels that are passes
//      over the model (most opened by the loader, or one graph replay each, or holding layers);
//   6. else the whole trace (the span of its GPU work) is one step.
// Except for ProfilerStep#N ranges (which already do), a step runs to the next step's start when
// the gap between them is shorter than the median step (the scheduling and sampling around an
// annotated forward belong to the step period; a longer gap is the program waiting).
// A repeating kernel block inside a step is structure (decoder layers), reported as such
// ("36 repeats of a 15-kernel block"), never as iterations.
// Phases (prefill / decode / mixed) come from the step annotations' counts, else - for steps of a
// Python loop - from the shape of the work (a first long pass, then short repeated ones).
// Warm-up = the leading steps of a phase that are much slower than the typical one of that phase
// (> 1.5x the median of the rest, default); a phase of one step has none. The steady window runs
// from the first step that is not a leading warm-up step to the end of the last step.
// One-time costs inside the window (one_time.h: module loading, a TorchScript first run, first
// calls) are found in every window and are not part of its steady part: the rules, the verdict,
// the critical path and the stalls leave them out; only the warm-up finding reports them.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps/one_time.h"
#include "analysis/steps/stages.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct IterationSpan {
  int64_t number = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int phase = -1;       // index into SteadyState::phases; -1 when steps have no phase
  int64_t tokens = -1;  // tokens the step processed, from its annotation; -1 unknown
  bool warmup = false;  // a leading slow step of its phase
  int64_t end_ns() const { return start_ns + dur_ns; }
};

struct LatencyStats {
  int64_t mean_ns = 0, median_ns = 0, p95_ns = 0, min_ns = 0, max_ns = 0, stddev_ns = 0;
};

// Steps of one kind: "prefill", "decode" or "mixed".
struct PhaseSteps {
  std::string name;
  std::string evidence;          // "annotation counts", "shape of the work"
  std::vector<size_t> steps;     // indices into SteadyState::iterations
  size_t warmup = 0;             // leading steps of the phase left out of its latency
  LatencyStats latency;          // over its steps after warm-up
  int64_t tokens_per_step = -1;  // mean over steps that give a count; -1 unknown
};

// A block of kernels that repeats inside the steps (layers of a model).
struct KernelStructure {
  size_t block = 0;    // kernels per block; 0 = none found
  size_t repeats = 0;  // blocks in a row
  std::string text() const;
};

struct SteadyState {
  std::string source;  // "ProfilerStep markers", "serving steps 'step[...]'", "whole trace ..."
  std::vector<IterationSpan> iterations;  // all steps found (warm-up included)
  std::vector<PhaseSteps> phases;         // empty when the steps have no phase
  KernelStructure structure;
  std::vector<Stage> stages;         // what runs once and what repeats in the window (stages.h)
  size_t warmup = 0;                 // leading steps left out of the steady window
  int64_t start_ns = 0, end_ns = 0;  // the steady window
  LatencyStats latency;              // over the steady steps (none: all zero)
  OneTime one_time;  // one-time costs inside the window, left out of its steady part
  size_t steady_count() const { return iterations.size() - warmup; }
  int64_t window_ns() const { return end_ns - start_ns; }
  // The window without its one-time costs.
  int64_t steady_ns() const { return window_ns() - one_time.ns; }
  // What the window's figures are about: "steady part: 380 ms after 628 ms of module loading and
  // 295 ms of TorchScript first run" ("whole window" when nothing was left out).
  std::string WindowText() const;
  // The phase named `name`; nullptr if the trace has none of it.
  const PhaseSteps* Phase(std::string_view name) const;
  // Index of the step whose host span holds `ts`; -1 if none.
  int StepAt(int64_t ts) const;
};

// The time a GPU op belongs to: the start of the call that launched it (the step that launched
// it, though the GPU may run it later), else its own start.
inline int64_t LaunchedAt(const model::Trace& t, model::RowId launch, int64_t start) {
  return launch != model::kNoRow ? t.api.start_ns[launch] : start;
}

struct SteadyStateOptions {
  double warmup_factor = 1.5;  // a step slower than this x the median of the rest is warm-up
  size_t min_repeats = 3;      // repeated annotations / frames must repeat this often
  std::string phase;           // when set: only the steps of this phase (`analyze --phase`)
};

SteadyState FindSteadyState(const model::Trace& trace, const SteadyStateOptions& options = {});

// FindSteadyState in two parts, so that the steps are found once and each phase's window is cut
// from them (analyze's per-phase findings): the steps and their phases, and the steady window
// of those steps (the phase `options.phase` alone when set, warm-up left out, latency,
// structure). FindSteadyState(t, o) == ChooseWindow(t, FindSteps(t, o), o).
SteadyState FindSteps(const model::Trace& trace, const SteadyStateOptions& options = {});
SteadyState ChooseWindow(const model::Trace& trace, SteadyState steps,
                         const SteadyStateOptions& options = {});

LatencyStats Latencies(std::vector<int64_t> durations);

// The repeating kernel block of [start, end) (by launch order of the kernels that start there).
KernelStructure FindKernelStructure(const model::Trace& trace, int64_t start, int64_t end,
                                    size_t min_repeats);

}  // namespace gpuscope::analysis
