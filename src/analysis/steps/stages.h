#pragma once
// The stages of a window: what runs once and what repeats (issue 50). The window's kernels, in
// launch order, are cut into stretches where the kernel names repeat with one period (a block of
// kernels run again and again) and the stretches between them (run once: a prefix, a suffix, a
// model's part between two repeated ones). Each repeated stage is a run of steps or passes when
// something on the host separates its blocks (a graph launch, a synchronization, a data-loader
// call, a step marker, a host gap), or when a block holds a repeating block of its own (a pass over
// a model holds its layers: the diffusion steps inside one graph replay); else its blocks are
// layers. The stages cover the window in order, each from its first kernel's start on the GPU to
// the next one's.

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// kUpdates: an optimizer's per-parameter update (Adam's, Adagrad's kernels for one parameter,
// repeated for each) inside Optimizer.step - a block in a row that is not a model's layer.
enum class StageKind { kOnce, kSteps, kPasses, kLayers, kUpdates };

struct Stage {
  StageKind kind = StageKind::kOnce;
  std::string label;      // "prefix", "10 x pass", "36 x layer", "8 x update", "suffix", "between"
  std::string separator;  // what separates the repeats ("a graph launch", ...); "" none
  size_t kernels = 0;     // kernels per repeat (all of the stage's when run once)
  size_t repeats = 1;
  int64_t start_ns = 0, dur_ns = 0;
  int64_t end_ns() const { return start_ns + dur_ns; }
};

// The stages of [start, end) (kernels by the time of the call that launched them), covering it;
// empty when no kernel was launched there. A block repeats at least min_repeats times.
// About 30 linear passes over the window's kernels.
// When the program marked min_repeats steps or more (ProfilerStep#N) and no stage of steps is
// found from the kernels' names, the markers' steps: kernels per repeat is the median per step.
std::vector<Stage> FindStages(const model::Trace& trace, int64_t start, int64_t end,
                              size_t min_repeats);

// The stages of marked steps alone (stages_marked.cc): what was launched before the first marker
// in [start, end) ("prefix"), then "N x step" from the first marker to the window's end; empty
// when fewer than min_repeats markers fall in the window.
std::vector<Stage> MarkedStepStages(const model::Trace& trace, int64_t start, int64_t end,
                                    size_t min_repeats);

}  // namespace gpuscope::analysis
