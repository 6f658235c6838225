#include "analysis/stats/stats.h"

#include <gtest/gtest.h>

#include "model/linker.h"

namespace gpuscope::analysis {
namespace stats_test {  // this file's helpers, apart in a unity build
namespace {

using namespace gpuscope::model;

// A model built by hand: analyses never need an importer.
class StatsTest : public ::testing::Test {
 protected:
  Trace t_;
  TrackId cpu_ = 0, gpu_ = 0;
  void SetUp() override {
    cpu_ = t_.InternTrack(TrackKind::kCpuThread, "1", "1");
    gpu_ = t_.InternTrack(TrackKind::kGpuStream, "0", "7");
  }
  void Kernel(const char* name, int64_t start, int64_t dur) {
    KernelRow r;
    r.start_ns = start, r.dur_ns = dur, r.name = t_.strings.Intern(name), r.track = gpu_;
    t_.kernels.Append(r);
  }
  void Memop(MemopKind kind, MemoryKind src, MemoryKind dst, int64_t dur, int64_t bytes) {
    MemopRow r;
    r.start_ns = 0, r.dur_ns = dur, r.kind = kind, r.src = src, r.dst = dst, r.bytes = bytes,
    r.track = gpu_;
    t_.memops.Append(r);
  }
};

TEST_F(StatsTest, KernelTableMatchesNsysDefinitions) {
  for (int64_t d : {10, 20, 30, 40}) Kernel("gemm", d * 100, d);  // even count: median = (20+30)/2
  Kernel("relu", 0, 100);
  Kernel("_Z4tinyv", 0, 1);  // mangled: shown demangled
  LinkTrace(t_);
  Stats s = ComputeStats(t_, {});
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].name, "gemm");  // sorted by total: 100 (gemm) ties 100 (relu) -> by name
  EXPECT_EQ(s.kernels[0].calls, 4u);
  EXPECT_EQ(s.kernels[0].total_ns, 100);
  EXPECT_EQ(s.kernels[0].avg_ns, 25);
  EXPECT_EQ(s.kernels[0].median_ns, 25);
  EXPECT_EQ(s.kernels[0].min_ns, 10);
  EXPECT_EQ(s.kernels[0].max_ns, 40);
  EXPECT_EQ(s.kernels[0].stddev_ns, 13);  // sample stddev of 10,20,30,40 = 12.91
  EXPECT_EQ(s.kernels[1].name, "relu");
  EXPECT_EQ(s.kernels[1].stddev_ns, 0);
  EXPECT_EQ(s.kernels[2].name, "tiny()");
  EXPECT_NEAR(s.kernels[0].percent, 100.0 * 100 / 201, 1e-9);
  EXPECT_EQ(s.kernel_total_ns, 201);
  StatsOptions keep;
  keep.demangle = false;
  EXPECT_EQ(ComputeStats(t_, keep).kernels[2].name, "_Z4tinyv");
}

// A mangled name and the raw spelling of its demangled text are one kernel, whichever comes
// first; two mangled spellings of one text too.
TEST_F(StatsTest, DemangledNamesJoinTheirRawSpelling) {
  Kernel("_Z4tinyv", 0, 1);
  Kernel("tiny()", 10, 2);
  Kernel("_Z4tinyv", 20, 3);
  Kernel("_Z3bigv", 30, 5);
  Kernel("_Z3bigv", 40, 5);
  LinkTrace(t_);
  Stats s = ComputeStats(t_, {});
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "big()");
  EXPECT_EQ(s.kernels[0].calls, 2u);
  EXPECT_EQ(s.kernels[1].name, "tiny()");
  EXPECT_EQ(s.kernels[1].calls, 3u);
  EXPECT_EQ(s.kernels[1].total_ns, 6);
}

// A table cut to its first rows holds exactly the first rows of the whole table (ties by name),
// with the counts and totals of the whole.
TEST_F(StatsTest, MaxRowsKeepsTheFirstRowsAndTheWholeCounts) {
  for (int i = 0; i < 40; ++i) {
    std::string name = "k";
    name += std::to_string(i);
    for (int c = 0; c <= i % 3; ++c) Kernel(name.c_str(), i * 1000 + c * 10, 1 + (i % 7));
  }
  TrackId thread = cpu_;
  for (int i = 0; i < 30; ++i) {
    CpuRangeRow r;
    r.start_ns = i * 100, r.dur_ns = 5 + (i % 4), r.track = thread;
    std::string name = "op";
    name += std::to_string(i % 20);
    r.name = t_.strings.Intern(name);
    t_.cpu.Append(r);
  }
  LinkTrace(t_);
  Stats all = ComputeStats(t_, {});
  StatsOptions cut;
  cut.max_rows = 7;
  Stats top = ComputeStats(t_, cut);
  ASSERT_EQ(top.kernels.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(top.kernels[i].name, all.kernels[i].name);
    EXPECT_EQ(top.kernels[i].total_ns, all.kernels[i].total_ns);
    EXPECT_EQ(top.kernels[i].percent, all.kernels[i].percent);
  }
  ASSERT_EQ(top.cpu_ops.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(top.cpu_ops[i].name, all.cpu_ops[i].name);
  EXPECT_EQ(top.kernel_names, 40u);
  EXPECT_EQ(all.kernel_names, 40u);
  EXPECT_EQ(top.cpu_op_names, 20u);
  EXPECT_EQ(top.kernel_calls, all.kernel_calls);
  EXPECT_EQ(top.kernel_total_ns, all.kernel_total_ns);
}

TEST_F(StatsTest, MemopsByKindWithHostMemoryAndUnknownBytes) {
  Memop(MemopKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 100, 1000);
  Memop(MemopKind::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 100, 3000);
  Memop(MemopKind::kDtoH, MemoryKind::kDevice, MemoryKind::kHost, 10, -1);  // size not recorded
  Memop(MemopKind::kMemset, MemoryKind::kUnknown, MemoryKind::kDevice, 5, 64);
  LinkTrace(t_);
  Stats s = ComputeStats(t_, {});
  ASSERT_EQ(s.memops.size(), 3u);
  const MemopStat& h = s.memops[0];
  EXPECT_EQ(h.kind, MemopKind::kHtoD);
  EXPECT_EQ(h.calls, 2u);
  EXPECT_EQ(h.bytes, 4000);
  EXPECT_DOUBLE_EQ(h.gbps, 20.0);  // 4000 B / 200 ns
  EXPECT_EQ(h.pageable, 1u);
  EXPECT_EQ(h.pinned, 1u);
  const MemopStat& d = s.memops[1];
  EXPECT_EQ(d.kind, MemopKind::kDtoH);
  EXPECT_EQ(d.calls_unknown_bytes, 1u);
  EXPECT_FALSE(d.bandwidth_known);
  EXPECT_EQ(d.host_unknown, 1u);
  EXPECT_EQ(s.memops[2].kind, MemopKind::kMemset);
}

TEST_F(StatsTest, CpuSelfTimeSubtractsDirectChildrenAndApiCalls) {
  auto op = [&](const char* n, int64_t s, int64_t d) {
    CpuRangeRow r;
    r.start_ns = s, r.dur_ns = d, r.name = t_.strings.Intern(n), r.track = cpu_;
    t_.cpu.Append(r);
  };
  op("aten::linear", 0, 100);
  op("aten::addmm", 10, 50);
  op("aten::empty", 12, 5);
  ApiRow a;
  a.start_ns = 20, a.dur_ns = 10, a.name = t_.strings.Intern("cudaLaunchKernel"), a.track = cpu_;
  t_.api.Append(a);
  LinkTrace(t_);
  Stats s = ComputeStats(t_, {});
  ASSERT_EQ(s.cpu_ops.size(), 3u);
  EXPECT_EQ(s.cpu_ops[0].name, "aten::linear");
  EXPECT_EQ(s.cpu_ops[0].self_ns, 50);  // 100 - addmm 50
  EXPECT_EQ(s.cpu_ops[1].name, "aten::addmm");
  EXPECT_EQ(s.cpu_ops[1].self_ns, 35);  // 50 - empty 5 - launch 10
  ASSERT_EQ(s.api.size(), 1u);
  EXPECT_EQ(s.api[0].total_ns, 10);
}

}  // namespace
}  // namespace stats_test
}  // namespace gpuscope::analysis
