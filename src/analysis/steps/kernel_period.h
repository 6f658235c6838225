#pragma once
// The iteration period of a trace whose steps are not marked, from the repeats of its kernels:
// a training or serving loop launches the same kernel sequence every iteration, so the GPU
// that runs the most kernels repeats its kernel names with a fixed lag (kernels per iteration);
// the time each repeat takes is one iteration. `diff` compares runs by it when neither marks
// steps (a 2-GPU nsys window: 119 kernels repeating every 17.5 ms).

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

struct KernelPeriod {
  int device = -1;                 // the GPU whose kernels repeat
  size_t kernels = 0;              // kernels per period (the lag); 0: no period found
  std::vector<int64_t> period_ns;  // each whole period's duration, in order
};

// Kernels of the busiest device in start order; the smallest lag L >= 2 at which at least 90%
// of the names repeat (name[i] == name[i + L]) and that leaves >= 2 whole periods. Lags are tried
// up to kMaxPeriodKernels (a loop of more kernels than that is not found).
// The smallest such lag under kMinPeriodKernels is a few kernels alternating (a layer's pair),
// not an iteration: no period then.
inline constexpr size_t kMaxPeriodKernels = 20'000;
inline constexpr size_t kMinPeriodKernels = 8;
KernelPeriod FindKernelPeriod(const model::Trace& t);

}  // namespace gpuscope::analysis
