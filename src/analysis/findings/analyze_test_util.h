#pragma once
// What the analyze tests share: the findings of one rule, and a healthy GPU-bound loop to plant
// problems into.

#include <string_view>
#include <vector>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"

namespace gpuscope::analysis::test_models {

inline std::vector<const Finding*> Rule(const AnalysisReport& r, std::string_view id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings) {
    if (f.rule == id) out.push_back(&f);
  }
  return out;
}

// A healthy GPU-bound loop: 10 steps of 1 ms, each with 10 back-to-back 95 us kernels launched
// well ahead (gaps of 4 us, 14 us across steps); no copies, no syncs.
inline void Healthy(Builder& b, int steps = 10) {
  for (int s = 0; s < steps; ++s) {
    int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    for (int k = 0; k < 10; ++k)
      b.Launch("gemm", t0 + k * 5 * us - 2 * us, 4 * us, t0 + 5 * us + k * 99 * us, 95 * us);
  }
}

}  // namespace gpuscope::analysis::test_models
