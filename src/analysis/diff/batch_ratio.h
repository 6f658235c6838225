#pragma once
// How much more work each step of one run does than another's, read from the shapes PyTorch
// recorded (record_shapes): a batch of 512 against a batch of 2 of the same model is 256 times
// the work per step, and comparing their step times as they are says "slower (+1603%)" of a run
// that is faster per sample. `diff` compares per sample when the two runs' shapes agree on one
// ratio.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The ratio of the two runs' batch sizes, after / before; known() only when the shapes agree. In
// serving, the ratio of the tokens each step processed (unit "token").
struct BatchRatio {
  double ratio = 1;
  int64_t before = 0, after = 0;  // the leading dimension of `op`'s first tensor input, each run
                                  // (unit "token": the mean tokens per step)
  std::string op;                 // the op with the most calls among those agreeing
  std::string unit = "sample";    // what the verdict is per: "sample" or "token"
  uint64_t agreeing_calls = 0, compared_calls = 0;
  bool known() const { return before > 0 && after > 0 && before != after; }
  // The after run's step times and their spread as if it ran the before run's batch (per
  // sample); unchanged when the ratio is not known.
  void PerSample(std::vector<int64_t>& times, int64_t& stddev_ns) const;
};

// For each op name both runs called in their windows ([start, end) of each) with a tensor input
// of two or more dimensions: the most common leading dimension of its first such input, each run.
// The ratio after / before that ops holding at least kMinAgreeingShare of the compared calls
// agree on (at least kMinAgreeingOps op names), when it is not 1; else unknown (same work per
// step, shapes not recorded, or shapes that disagree: sequence length and batch both changed).
inline constexpr double kMinAgreeingShare = 0.6;
inline constexpr size_t kMinAgreeingOps = 3;
BatchRatio FindBatchRatio(const model::Trace& before, int64_t before_start, int64_t before_end,
                          const model::Trace& after, int64_t after_start, int64_t after_end);

// Serving runs of different loads (32 against 64 concurrent requests) do different work per step:
// the ratio of their mean tokens per step (the serving steps' annotations), unit "token", when
// every steady step of both gives its count and the means differ by kMinTokenChange or more;
// else unknown.
inline constexpr double kMinTokenChange = 0.1;
BatchRatio FindTokenRatio(const SteadyState& before, const SteadyState& after);

}  // namespace gpuscope::analysis
