// The fusion rule on hand-built models: a chain of elementwise kernels the GPU waits for is
// priced at its kernels less one kernel moving the chain's compulsory bytes; ops on tensors of
// other sizes, chains from two lines and short chains are not chains.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace fusion_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::Rule;
using test_models::us;

struct Op {
  std::string name, dims, types;
  int64_t ns;  // its kernel's time
};

// GPU-bound steps: a gemm, then `ops` launched one after another from the Python line of each
// (a 4 us dispatch gap between queued kernels), then a synchronize. `host_gap`: host work before
// each op (the GPU then waits for its launch).
model::Trace& Build(Builder& b, const std::vector<Op>& ops, const std::vector<std::string>& lines,
                    int steps = 10, int64_t host_gap = 0) {
  int64_t t = 0;
  for (int s = 0; s < steps; ++s) {
    int64_t t0 = t, host = t0 + 5 * us;
    b.Launch("gemm", host, 4 * us, host + 6 * us, 300 * us);
    int64_t gpu_free = host + 306 * us;
    host += 5 * us;
    for (size_t i = 0; i < ops.size(); ++i) {
      host += i ? host_gap : 0;
      b.Frame(lines[i % lines.size()], host, 8 * us);
      b.Op(ops[i].name, host + 1 * us, 6 * us, model::EncodeOpArgs(ops[i].dims, ops[i].types, ""));
      const int64_t start = std::max(gpu_free + 4 * us, host + 8 * us);
      b.Launch("void at::native::vectorized_elementwise_kernel<4>", host + 2 * us, 4 * us, start,
               ops[i].ns);
      gpu_free = start + ops[i].ns;
      host += 9 * us;
    }
    int64_t sync_end = gpu_free + 5 * us;
    b.Api("cudaStreamSynchronize", host, sync_end - host, 0);
    b.Step(s, t0, sync_end + 5 * us - t0);
    t = sync_end + 10 * us;
  }
  return b.Link();
}

// y [1024, 1024] bf16 (2 MiB): mul by a scalar, add a bias [1024], gelu; each kernel 40 us.
const std::vector<Op> kChain = {
    {"aten::mul", "[[1024, 1024], []]", R"(["c10::BFloat16", "Scalar"])", 40 * us},
    {"aten::add", "[[1024, 1024], [1024], []]", R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])",
     40 * us},
    {"aten::gelu", "[[1024, 1024], []]", R"(["c10::BFloat16", ""])", 40 * us}};

TEST(Fusion, AChainTheGpuWaitsForIsPricedAsOneKernelOfItsCompulsoryBytes) {
  Builder b;
  AnalysisReport r = Analyze(Build(b, kChain, {"model.py(31): activation"}));
  auto f = Rule(r, "fusion");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.op, "mul -> add -> gelu");
  EXPECT_EQ(f[0]->where.python, "model.py(31): activation");
  // Bytes: mul 4 MiB, add 4 MiB + 2 KiB, gelu 4 MiB; the two intermediates written and read
  // back (8 MiB) are not moved: 4 MiB + 2 KiB at the chain's bandwidth (12 MiB + 2 KiB in
  // 120 us) take 40.0 us. Saved per step: 120 - 40.0 us of kernels and two dispatch gaps.
  double total = 3.0 * (4 << 20) + 2048, fused = (4 << 20) + 2048;
  int64_t fused_ns = static_cast<int64_t>(fused / (total / (120.0 * us)));
  int64_t steps = static_cast<int64_t>(r.steady.steady_count());
  EXPECT_EQ(f[0]->standalone_ns, steps * (120 * us - fused_ns + 8 * us));
  EXPECT_NE(f[0]->detail.find("a fused kernel moves"), std::string::npos) << f[0]->detail;
  EXPECT_LE(f[0]->standalone_ns, f[0]->edits_remove_ns);
}

TEST(Fusion, OtherSizesOtherLinesAndShortChainsAreNotChains) {
  // An optimizer's updates of three parameters of other sizes, one after the other.
  std::vector<Op> params = kChain;
  params[1].dims = "[[512, 1024], [1024], []]";
  params[2].dims = "[[2048, 1024], []]";
  Builder sizes;
  EXPECT_TRUE(Rule(Analyze(Build(sizes, params, {"train.py(9): step"})), "fusion").empty());
  // Each op from a line of its own.
  Builder lines;
  EXPECT_TRUE(
      Rule(Analyze(Build(lines, kChain, {"a.py(1): f", "a.py(2): g", "a.py(3): h"})), "fusion")
          .empty());
  // Two ops: below --fusion-min-kernels.
  Builder two;
  EXPECT_TRUE(
      Rule(Analyze(Build(two, {kChain[0], kChain[1]}, {"model.py(31): activation"})), "fusion")
          .empty());
  // A GEMM between them breaks the chain.
  std::vector<Op> with_gemm = {kChain[0],
                               kChain[1],
                               {"aten::mm", "[[1024, 1024], [1024, 1024]]",
                                R"(["c10::BFloat16", "c10::BFloat16"])", 40 * us},
                               kChain[2]};
  Builder gemm;
  EXPECT_TRUE(
      Rule(Analyze(Build(gemm, with_gemm, {"model.py(31): activation"})), "fusion").empty());
}

TEST(Fusion, KernelsThatDoNotFollowEachOtherAreNotAChain) {
  // The same ops from the same line, 2 ms of other host work before each (issue 56: a "chain"
  // whose evidence spanned 274 ms): fusing them would not remove the time between them.
  Builder apart;
  EXPECT_TRUE(
      Rule(Analyze(Build(apart, kChain, {"model.py(31): activation"}, 10, 2000 * us)), "fusion")
          .empty());
  // 100 us of host work before each: they still follow each other.
  Builder close;
  EXPECT_EQ(
      Rule(Analyze(Build(close, kChain, {"model.py(31): activation"}, 10, 100 * us)), "fusion")
          .size(),
      1u);
}

}  // namespace
}  // namespace fusion_test
}  // namespace gpuscope::analysis
