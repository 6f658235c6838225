// The batch ratio of two runs from their recorded shapes, and diff's verdict per sample.

#include "analysis/diff/batch_ratio.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/diff/diff.h"
#include "model/linker.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace batch_ratio_test {  // this file's helpers, apart in a unity build
namespace {

// `steps` ProfilerSteps of step_ns, each running a conv2d, a relu and a linear on a batch of
// `batch` (PyTorch's record_shapes), one kernel of kernel_ns each; `seq`: a second leading
// dimension some ops see instead of the batch (a transformer's [batch * seq, hidden]).
model::Trace BatchRun(int steps, int64_t step_ns, int64_t batch, int64_t kernel_ns,
                      int64_t seq = 1) {
  model::Trace t;
  auto cpu = t.InternTrack(model::TrackKind::kCpuThread, "1", "1");
  auto gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  const std::string b = std::to_string(batch), bs = std::to_string(batch * seq);
  const std::pair<const char*, std::string> ops[] = {
      {"aten::conv2d", "[[" + b + ",3,224,224],[64,3,7,7]]"},
      {"aten::relu", "[[" + b + ",64,112,112]]"},
      {"aten::linear", "[[" + bs + ",2048],[1000,2048]]"},
      {"aten::add", "[[" + bs + ",1000],[" + bs + ",1000]]"}};
  for (int s = 0; s < steps; ++s) {
    const int64_t t0 = s * step_ns;
    model::CpuRangeRow step;
    step.start_ns = t0, step.dur_ns = step_ns, step.track = cpu;
    step.name = t.strings.Intern("ProfilerStep#" + std::to_string(s));
    step.kind = model::CpuRangeKind::kAnnotation;
    t.cpu.Append(step);
    int64_t at = t0 + 10;
    for (const auto& [name, dims] : ops) {
      model::CpuRangeRow op;
      op.start_ns = at, op.dur_ns = 5, op.track = cpu, op.kind = model::CpuRangeKind::kOp;
      op.name = t.strings.Intern(name);
      op.args = t.strings.Intern(model::EncodeOpArgs(dims, "", ""));
      t.cpu.Append(op);
      model::KernelRow k;
      k.start_ns = at + 6, k.dur_ns = kernel_ns, k.track = gpu, k.device = 0;
      k.name = t.strings.Intern(std::string(name) + "_kernel");
      t.kernels.Append(k);
      at += kernel_ns + 10;
    }
  }
  model::LinkTrace(t);
  return t;
}

TEST(BatchRatio, ShapesThatAgreeGiveTheRatio) {
  model::Trace b = BatchRun(4, 10'000, 2, 1000), a = BatchRun(4, 10'000, 512, 1000);
  BatchRatio r = FindBatchRatio(b, 0, 40'000, a, 0, 40'000);
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.before, 2);
  EXPECT_EQ(r.after, 512);
  EXPECT_DOUBLE_EQ(r.ratio, 256);
  // The same batch: the same work per step, nothing to scale.
  EXPECT_FALSE(FindBatchRatio(b, 0, 40'000, BatchRun(4, 10'000, 2, 1000), 0, 40'000).known());
  // No shapes recorded in one run: unknown.
  model::Trace bare = BatchRun(4, 10'000, 2, 1000);
  for (auto& args : bare.cpu.args) args = bare.strings.Intern("");
  EXPECT_FALSE(FindBatchRatio(bare, 0, 40'000, a, 0, 40'000).known());
}

TEST(BatchRatio, ShapesThatDisagreeGiveNone) {
  // Batch 2 -> 4 while the sequence goes 1 -> 64: half the ops see x2, half x128.
  model::Trace b = BatchRun(4, 10'000, 2, 1000), a = BatchRun(4, 10'000, 4, 1000, 64);
  EXPECT_FALSE(FindBatchRatio(b, 0, 40'000, a, 0, 40'000).known());
}

TEST(Diff, ALargerBatchIsComparedPerSample) {
  // Batch 8 takes 3x batch 2's step: 4x the samples in 3x the time is 25% faster per sample,
  // not "slower (+200%)".
  model::Trace before = BatchRun(8, 10'000, 2, 1000), after = BatchRun(8, 30'000, 8, 3000);
  DiffReport r = Diff(before, after);
  ASSERT_TRUE(r.batch.known());
  EXPECT_DOUBLE_EQ(r.batch.ratio, 4);
  EXPECT_NEAR(r.change_percent, -25, 0.5);
  EXPECT_EQ(r.verdict, "faster");
  EXPECT_NE(r.basis.find("per sample: batch 2 vs 8"), std::string::npos) << r.basis;
  // The same batch sizes: compared as they are.
  DiffReport same = Diff(before, BatchRun(8, 30'000, 2, 3000));
  EXPECT_FALSE(same.batch.known());
  EXPECT_EQ(same.verdict, "slower");
}

// A serving run: 8 SGLang decode steps of `step_ns` at `batch` requests (one token each), each
// launching 5 kernels that fill it.
const model::Trace& ServingRun(test_models::Builder& b, int64_t batch, int64_t step_ns) {
  using test_models::us;
  for (int s = 0; s < 8; ++s) {
    const int64_t t0 = s * (step_ns + 100 * us);
    b.Annotation("step[DECODE bs=" + std::to_string(batch) + "]", t0, step_ns);
    for (int k = 0; k < 5; ++k)
      b.Launch("decode_k" + std::to_string(k), t0 + (1 + k) * us, 5 * us,
               t0 + 10 * us + k * (step_ns / 5), step_ns / 5 - 20 * us);
  }
  return b.Link();
}

TEST(Diff, ServingStepsOfMoreTokensAreComparedPerToken) {
  // 64 concurrent requests take 14 ms a step where 32 took 10 ms: each step is slower, each
  // token 30% faster. The verdict is per token, not "slower (+40%)".
  using test_models::us;
  test_models::Builder b32, b64;
  const model::Trace& before = ServingRun(b32, 32, 10'000 * us);
  const model::Trace& after = ServingRun(b64, 64, 14'000 * us);
  DiffReport r = Diff(before, after);
  ASSERT_TRUE(r.batch.known()) << r.basis;
  EXPECT_EQ(r.batch.unit, "token");
  EXPECT_DOUBLE_EQ(r.batch.ratio, 2);
  EXPECT_NEAR(r.change_percent, -30, 1);
  EXPECT_EQ(r.verdict, "faster") << r.basis;
  EXPECT_NE(r.basis.find("per token: 32 vs 64 tokens per step"), std::string::npos) << r.basis;
  // The same load: compared per step.
  test_models::Builder again;
  DiffReport same = Diff(before, ServingRun(again, 32, 14'000 * us));
  EXPECT_FALSE(same.batch.known());
  EXPECT_EQ(same.verdict, "slower");
}

}  // namespace
}  // namespace batch_ratio_test
}  // namespace gpuscope::analysis
