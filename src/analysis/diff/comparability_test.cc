// Whether two runs can be compared when their kernels are renamed: the ops that launched them.

#include "analysis/diff/comparability.h"

#include <gtest/gtest.h>

#include <memory>

#include "analysis/common/test_model_builder.h"
#include "analysis/diff/diff.h"

namespace gpuscope::analysis {
namespace comparability_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

// 8 steps of 1 ms; in each, `calls` aten::addmm ops launching one `gemm` kernel (60 us) each,
// and with `cast` an aten::_to_copy launching a 10 us cast kernel before them (AMP's).
std::unique_ptr<Builder> OpsRun(const std::string& gemm, int calls, bool cast) {
  auto b = std::make_unique<Builder>();
  for (int s = 0; s < 8; ++s) {
    const int64_t t0 = s * 1000 * us;
    b->Step(s, t0, 1000 * us);
    int64_t at = t0 + 10 * us;
    if (cast) {
      b->Op("aten::_to_copy", at, 10 * us);
      b->Launch("cast_kernel", at + 2 * us, 5 * us, at + 10 * us, 10 * us);
      at += 20 * us;
    }
    for (int c = 0; c < calls; ++c) {
      b->Op("aten::addmm", at, 10 * us);
      b->Launch(gemm, at + 2 * us, 5 * us, at + 10 * us, 60 * us);
      at += 70 * us;
    }
  }
  return b;
}

TEST(Comparability, RenamedKernelsOfTheSameOpsAreOneProgram) {
  // fp32 against AMP: every GEMM kernel renamed, none shared by name.
  auto fp32 = OpsRun("sgemm_fp32_128x64", 4, false);
  auto amp = OpsRun("hgemm_fp16_256x128", 4, true);
  const model::Trace& b = fp32->Link();
  const model::Trace& a = amp->Link();
  DiffReport r = Diff(b, a);
  EXPECT_EQ(r.not_comparable_reason, "") << r.not_comparable_reason;
  EXPECT_NE(r.verdict, "not comparable");
  // The same op called three times as often a step is other work: not comparable by ops, and
  // its kernels share no name.
  auto other = OpsRun("hgemm_fp16_256x128", 12, false);
  DiffReport r2 = Diff(b, other->Link());
  EXPECT_NE(r2.not_comparable_reason.find("share little work"), std::string::npos)
      << r2.not_comparable_reason;
}

}  // namespace
}  // namespace comparability_test
}  // namespace gpuscope::analysis
