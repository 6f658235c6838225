#pragma once
// Where steps come from (internal to steady_state.cc): each function returns the steps one
// source finds, or none. See steady_state.h for the order in which they are tried.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis::internal {

struct StepSpan {
  int64_t start_ns = 0, dur_ns = 0;
  std::string label;  // the annotation / frame that marks it
  model::TrackId track = 0;
};

struct StepSource {
  std::string source;  // how the steps were found, in words
  std::vector<StepSpan> spans;
};

// What a serving-step annotation says of its step.
struct ServingLabel {
  bool serving = false;  // the name is a known serving-step annotation
  std::string family;    // "vllm execute", "sglang step"
  std::string phase;     // "prefill", "decode", "mixed", "" unknown
  int64_t tokens = -1;   // tokens processed, -1 unknown
};
ServingLabel ParseServingLabel(std::string_view name);

// Host calls that launched GPU work, per host track, sorted by start, each weighted by the GPU
// ops it launched (a graph launch by its kernels): the test of "encloses the GPU work".
class LaunchIndex {
 public:
  explicit LaunchIndex(const model::Trace& t);
  size_t CountIn(model::TrackId track, int64_t start, int64_t end) const;
  size_t total() const { return total_; }

 private:
  std::vector<std::vector<int64_t>> by_track_;
  std::vector<std::vector<size_t>> prefix_;  // GPU ops launched by the first k calls
  size_t total_ = 0;
};

StepSource ServingSteps(const model::Trace& t, const LaunchIndex& launches);
StepSource RepeatedAnnotationSteps(const model::Trace& t, const LaunchIndex& launches,
                                   size_t min_repeats);
StepSource PythonLoopSteps(const model::Trace& t, const LaunchIndex& launches, size_t min_repeats);

}  // namespace gpuscope::analysis::internal
