// The device-copy rule on hand-built models: a cast the GPU waits for is priced at its kernel
// and one dispatch gap, a cast hidden behind host-bound work at the host time of its op only,
// device-to-device copies without ops by their own size; small movement and healthy loops stay
// quiet.

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace device_copy_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::Rule;
using test_models::us;

// Steps of one host thread that launches `kernels` back to back on one stream (a 4 us dispatch
// gap between them) and synchronizes at the end (GPU-bound: the host waits). The kernel at
// `cast_at` is a cast of `cast_ns` launched by aten::to > _to_copy > copy_ (a float32 tensor of
// 1024 x 1024 cast to bf16); `host_gap` is host work between launches (host-bound when large).
struct Loop {
  int steps = 10;
  int kernels = 11;
  int cast_at = 5;
  int64_t cast_ns = 50 * us;
  int64_t gemm_ns = 95 * us;
  int64_t host_gap = 1 * us;
};

model::Trace& Build(Builder& b, const Loop& l) {
  const std::string args = model::EncodeOpArgs("[[1024, 1024], [1024, 1024], []]",
                                               R"(["c10::BFloat16", "float", "Scalar"])", "");
  int64_t t = 0;
  for (int s = 0; s < l.steps; ++s) {
    int64_t t0 = t, host = t0 + 5 * us, gpu_free = 0;
    for (int k = 0; k < l.kernels; ++k) {
      bool cast = k == l.cast_at;
      if (cast) {
        b.Op("aten::to", host - 1500, 6 * us);
        b.Op("aten::_to_copy", host - 1000, 5 * us);
        b.Op("aten::copy_", host - 500, 4 * us + 600, args);
      }
      int64_t dur = cast ? l.cast_ns : l.gemm_ns;
      int64_t start = std::max(host + 6 * us, gpu_free + 4 * us);
      b.Launch(cast ? "void at::native::vectorized_elementwise_kernel<4, "
                      "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)>"
                    : "gemm",
               host, 4 * us, start, dur);
      gpu_free = start + dur;
      host += 4 * us + (cast ? 2 * us : 0) + l.host_gap;
    }
    int64_t sync_end = std::max(host + 2 * us, gpu_free + 5 * us);
    b.Api("cudaStreamSynchronize", host, sync_end - host, 0);
    b.Step(s, t0, sync_end + 5 * us - t0);
    t = sync_end + 10 * us;
  }
  return b.Link();
}

TEST(DeviceCopy, ACastTheGpuWaitsForIsPricedAtItsKernelAndOneGap) {
  Builder b;
  AnalysisReport r = Analyze(Build(b, Loop{}));
  auto f = Rule(r, "device-copy");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.op, "aten::to");
  // Each steady step ends 54 us sooner: the cast's 50 us and the dispatch gap before the kernel
  // after it (the host's 6 us in the ops are hidden: it waits in the synchronize).
  EXPECT_EQ(f[0]->standalone_ns, static_cast<int64_t>(r.steady.steady_count()) * 54 * us);
  EXPECT_NE(f[0]->detail.find("casts"), std::string::npos) << f[0]->detail;
  // 4 MiB read and 2 MiB written per call, over the 50 us of each kernel.
  EXPECT_NE(f[0]->detail.find("GB/s"), std::string::npos) << f[0]->detail;
  EXPECT_NE(f[0]->advice.find("autocast"), std::string::npos);
  EXPECT_LE(f[0]->standalone_ns, f[0]->edits_remove_ns);
}

TEST(DeviceCopy, ACastHiddenBehindHostWorkSavesOnlyItsHostTime) {
  Builder b;
  Loop l;
  l.host_gap = 200 * us;  // host-bound: the GPU waits for every launch
  AnalysisReport r = Analyze(Build(b, l));
  auto f = Rule(r, "device-copy");
  // Its op's host time (6 us a step), not the kernel's 50 us.
  int64_t steps = static_cast<int64_t>(r.steady.steady_count());
  for (const Finding* x : f) EXPECT_LE(x->standalone_ns, steps * 7 * us);
}

TEST(DeviceCopy, SmallMovementAndHealthyLoopsStayQuiet) {
  Builder small;
  Loop l;
  l.cast_ns = 2 * us;  // 0.2% of the GPU's busy time: below --copy-share
  EXPECT_TRUE(Rule(Analyze(Build(small, l)), "device-copy").empty());
  Builder healthy;
  l.cast_at = -1;
  EXPECT_TRUE(Rule(Analyze(Build(healthy, l)), "device-copy").empty());
  // A cast fused with work into one Triton kernel is work: not reported.
  Builder fused;
  test_models::Healthy(fused);
  for (int s = 0; s < 10; ++s)
    fused.Launch("triton_poi_fused__to_copy_add_mul_3", s * 1000 * us + 40 * us, 4 * us,
                 s * 1000 * us + 995 * us, 4 * us);
  EXPECT_TRUE(Rule(Analyze(fused.Link()), "device-copy").empty());
}

TEST(DeviceCopy, DeviceToDeviceCopiesWithoutOpsAreFoundBySize) {
  Builder b;
  int64_t t = 0;
  for (int s = 0; s < 10; ++s) {
    int64_t t0 = t;
    b.Launch("gemm", t0 + 5 * us, 4 * us, t0 + 20 * us, 300 * us);
    b.Copy(model::MemopKind::kDtoD, "cudaMemcpyAsync", t0 + 10 * us, 4 * us, t0 + 324 * us,
           100 * us, 64 << 20, model::MemoryKind::kDevice);
    b.raw().memops.name.back() = b.raw().strings.Intern("Memcpy DtoD (Device -> Device)");
    b.raw().memops.src.back() = model::MemoryKind::kDevice;
    // A kernel between the copy and the synchronize (a copy right before one is memcpy-sync's).
    b.Launch("tail", t0 + 15 * us, 4 * us, t0 + 428 * us, 2 * us);
    b.Api("cudaStreamSynchronize", t0 + 20 * us, 415 * us, 0);
    b.Step(s, t0, 440 * us);
    t = t0 + 440 * us;
  }
  AnalysisReport r = Analyze(b.Link());
  auto f = Rule(r, "device-copy");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.kernel, "Memcpy DtoD (Device -> Device)");
  // The copy's 100 us and the gap before it, every step.
  EXPECT_EQ(f[0]->standalone_ns, static_cast<int64_t>(r.steady.steady_count()) * 104 * us);
  EXPECT_NE(f[0]->detail.find("GB/s"), std::string::npos) << f[0]->detail;
}

}  // namespace
}  // namespace device_copy_test
}  // namespace gpuscope::analysis
