#pragma once
// `gpuscope whatif`: the replay as a tool to ask questions with. A scenario (all kernels X times
// faster, some kernels, copies, host work, no synchronizations, graph capture) is turned into
// the replay's edits (what_if.h) over the steady window, and the window, step time and critical
// path are reported before and after. Every assumption is the replay's (help whatif).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/replay/replay_graph.h"
#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct Scenario {
  double gpu_speedup = 1;                               // every kernel's time / X
  std::vector<std::pair<std::string, double>> kernels;  // kernels matching REGEX: time / X
  double copies = 1;                                    // every copy's and memset's time / X
  double host_speedup = 1;                              // host work between runtime calls / X
  bool no_syncs = false;  // synchronize calls no longer wait for the GPU
  bool graphs = false;    // kernels launched as a graph replay: no launch cost or latency
  // The tracer's spacing of graph-replayed kernels taken out (common/tracer_spacing.h): they run
  // behind each other at a graph's own dispatch gap.
  bool without_tracer = false;
  // analyze's fixes of these rules (--fix RULE): their edits come from the findings layer
  // (FixOf), passed to RunScenario; named here for the scenario's text.
  std::vector<std::string> fixes;
  // --device NAME: kernels projected onto that GPU (roofline/projection.h, computed by the
  // caller and passed to RunScenario); named here for the scenario's text.
  std::string device;
  // The scenario in words ("--gpu-speedup 2 --no-syncs"), for the output.
  std::string Text() const;
  bool empty() const;
};

struct ScenarioSide {
  int64_t window_ns = 0;  // replayed steady window
  // The steps' measured mean (analyze's), after a change scaled as the window (0 without steps).
  int64_t step_ns = 0;
  std::vector<PathShare> path;
};

struct ScenarioResult {
  std::string window;  // how the window was found (steady-state source)
  size_t steps = 0;
  ScenarioSide before, after;
  std::string edits;  // the replay's edits, counted ("1,204 kernel durations changed")
  int64_t saving_ns() const { return before.window_ns - after.window_ns; }
};

// Replays the steady window without and with the scenario. An invalid kernel regex is an error
// the caller reports (RegexError); speedups must be > 0 (checked by the caller).
// `extra`: more edits (the --fix rules' fixes), merged with the scenario's.
ScenarioResult RunScenario(const model::Trace& t, const SteadyState& steady, const Scenario& s,
                           const WhatIf* extra = nullptr);

// "" when every --kernels pattern compiles, else what is wrong with the first that does not.
std::string RegexError(const Scenario& s);

}  // namespace gpuscope::analysis
