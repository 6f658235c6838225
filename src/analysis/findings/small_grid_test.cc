// small-grid on hand-built models: a GPU-bound run of kernels whose grid fills a quarter of the
// device's SMs; silent when the grid fills the device or the trace does not give the SM count.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace small_grid_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::Rule;
using test_models::us;

// 100 kernels of 95 us launched back to back 5 us apart (the GPU is the bottleneck), each with
// `grid` blocks of 256 threads, on a device of `sms` SMs; then one short kernel of 1 block.
model::Trace& Unlinked(Builder& b, uint32_t grid, int sms) {
  model::Device d;
  d.id = 0, d.name = "NVIDIA H100 80GB HBM3", d.vendor = model::Vendor::kNvidia;
  d.compute_units = sms;
  b.raw().devices.push_back(d);
  for (int k = 0; k < 100; ++k)
    b.Launch("my_kernel", k * 5 * us, 4 * us, 10 * us + k * 96 * us, 95 * us);
  b.Launch("tiny_kernel", 501 * us, 4 * us, 10 * us + 100 * 96 * us, 5 * us);
  model::Trace& t = b.raw();
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    t.kernels.grid[i] = {i < 100 ? grid : 1, 1, 1};
    t.kernels.block[i] = {256, 1, 1};
  }
  return t;
}
model::Trace& GpuBound(Builder& b, uint32_t grid, int sms) {
  Unlinked(b, grid, sms);
  return b.Link();
}

TEST(SmallGrid, QuarterOfTheDeviceIsPricedAtTheIdleShare) {
  Builder b;
  AnalysisReport r = Analyze(GpuBound(b, 33, 132));
  auto f = Rule(r, "small-grid");
  ASSERT_EQ(f.size(), 1u);  // the tiny kernel holds under 1% of the window
  EXPECT_EQ(f[0]->where.kernel, "my_kernel");
  EXPECT_NE(f[0]->detail.find("grid 33x1x1 (33 blocks) of 256x1x1 threads"), std::string::npos)
      << f[0]->detail;
  EXPECT_NE(f[0]->detail.find("132 SMs: 99 SMs idle"), std::string::npos) << f[0]->detail;
  // Each 95 us kernel would take 95 x 33 / 132 = 23.75 us: 100 x 71.25 us saved on the GPU,
  // which bounds the run; never more than the kernels' time x the idle share.
  const double bound = 100 * 95.0 * us * 99 / 132;
  EXPECT_LE(f[0]->standalone_ns, bound + 1);
  EXPECT_GT(f[0]->standalone_ns, 0.9 * bound);
  EXPECT_LE(f[0]->standalone_ns, f[0]->edits_remove_ns);
}

TEST(SmallGrid, SilentWhenTheGridFillsTheDeviceOrTheCountIsUnknown) {
  Builder full;
  EXPECT_TRUE(Rule(Analyze(GpuBound(full, 132, 132)), "small-grid").empty());
  Builder more;
  EXPECT_TRUE(Rule(Analyze(GpuBound(more, 1000, 132)), "small-grid").empty());
  Builder unknown;
  EXPECT_TRUE(Rule(Analyze(GpuBound(unknown, 33, 0)), "small-grid").empty());
}

// rocprofv3 and rocpd record the grid in work-items: 33 x 256 work-items are 33 blocks.
TEST(SmallGrid, WorkItemGridsOfHsaDispatchRecordsAreCountedInBlocks) {
  Builder b;
  b.raw().meta.format = "rocprofv3-json";
  model::Trace& t = GpuBound(b, 33 * 256, 304);
  t.devices[0].vendor = model::Vendor::kAmd;
  AnalysisReport r = Analyze(t);
  auto f = Rule(r, "small-grid");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->detail.find("(33 blocks)"), std::string::npos) << f[0]->detail;
  EXPECT_NE(f[0]->detail.find("304 CUs: 271 CUs idle"), std::string::npos) << f[0]->detail;
}

// DeepSeek's pattern: 112-block GEMMs on 132 SMs while a 20-block communication kernel runs
// beside each on another stream. The GEMM's spare SMs are the other kernel's: no finding. With
// the second stream's kernels beside only a tenth of the GEMMs, the other nine tenths are found.
TEST(SmallGrid, KernelsOfAnotherStreamBesideItTakeTheUnitsItLeaves) {
  auto run = [](int every) {
    auto b = std::make_unique<Builder>();
    model::Trace& t = Unlinked(*b, 112, 132);
    const model::TrackId side = t.InternTrack(model::TrackKind::kGpuStream, "0", "9");
    for (int k = 0; k < 100; k += every) {
      model::KernelRow r;
      r.start_ns = 10 * us + k * 96 * us, r.dur_ns = 95 * us, r.track = side, r.device = 0;
      r.name = t.strings.Intern("side_kernel");
      r.grid = {20, 1, 1}, r.block = {256, 1, 1};
      t.kernels.Append(r);
    }
    return b;
  };
  auto beside_all = run(1);
  EXPECT_TRUE(Rule(Analyze(beside_all->Link()), "small-grid").empty());
  auto beside_some = run(10);
  AnalysisReport r = Analyze(beside_some->Link());
  auto f = Rule(r, "small-grid");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->where.kernel, "my_kernel");
  // The 90 without a kernel beside them, less the first (launched before the window opens).
  EXPECT_NE(f[0]->detail.find("; 89 calls"), std::string::npos) << f[0]->detail;
}

}  // namespace
}  // namespace small_grid_test
}  // namespace gpuscope::analysis
