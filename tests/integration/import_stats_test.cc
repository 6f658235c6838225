// Importers and the stats tables together: a test that crosses layers on purpose, so it lives
// here and not next to either. Every format's fixture gives the tables its scenario holds. The
// ROCm scenario (make_rocm_fixtures.py): gemm x2 (20 + 22 us), one blit kernel (3 us), HtoD
// 4096 B (4 us), DtoH 64 B (1 us), 5 HIP calls.

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "analysis/stats/stats.h"
#include "import/common/sqlite_test_util.h"
#include "import/registry.h"

namespace gpuscope {
namespace import_stats_test {  // this file's helpers, apart in a unity build
namespace {

const std::string kData = GPUSCOPE_TEST_DATA_DIR;

model::Trace Load(const std::string& path) {
  auto trace = import::ImportTrace(path, {});
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  return trace.ok() ? std::move(trace).value() : model::Trace();
}

struct Case {
  const char* path;
  const char* format;
  bool api;         // the format records API calls (and their links)
  bool copy_bytes;  // the format records (or lets us recover) copy sizes
};

class SameScenario : public ::testing::TestWithParam<Case> {};

// The scenario of make_rocm_fixtures.py: gemm x2 (20 + 22 us), one blit kernel (3 us),
// HtoD 4096 B (4 us), DtoH 64 B (1 us), 5 HIP calls.
TEST_P(SameScenario, GivesTheSameTables) {
  const Case& c = GetParam();
  model::Trace t = Load(kData + "/" + c.path);
  EXPECT_EQ(t.meta.format, c.format);
  auto st = analysis::ComputeStats(t, {});
  ASSERT_EQ(st.kernels.size(), 2u);
  EXPECT_EQ(st.kernels[0].name, "gemm(float*)");
  EXPECT_EQ(st.kernels[0].calls, 2u);
  EXPECT_EQ(st.kernels[0].total_ns, 42000);
  EXPECT_EQ(st.kernels[1].name, "__amd_rocclr_copyBuffer");
  if (t.summary_only()) return;
  size_t blit = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    blit += (t.kernels.flags[i] & model::kKernelIsCopy) != 0;
  EXPECT_EQ(blit, 1u);
  if (!c.api) return;
  ASSERT_EQ(st.memops.size(), 2u);
  EXPECT_EQ(st.memops[0].kind, model::MemopKind::kHtoD);
  EXPECT_EQ(st.memops[0].total_ns, 4000);
  EXPECT_EQ(st.memops[0].host_unknown, 1u);  // ROCm tools never record pinning
  EXPECT_EQ(st.memops[1].kind, model::MemopKind::kDtoH);
  if (c.copy_bytes) {
    EXPECT_EQ(st.memops[0].bytes, 4096);
    EXPECT_EQ(st.memops[1].bytes, 64);
  } else {
    EXPECT_EQ(st.memops[0].calls_unknown_bytes, 1u);  // unknown, never 0
  }
  uint64_t api_calls = 0;
  for (const auto& a : st.api) api_calls += a.calls;
  EXPECT_EQ(api_calls, 5u);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_NE(t.kernels.launch[i], model::kNoRow) << i;
    EXPECT_EQ(t.str(t.api.name[t.kernels.launch[i]]), "hipLaunchKernel");
  }
  for (size_t i = 0; i < t.memops.size(); ++i) EXPECT_NE(t.memops.launch[i], model::kNoRow);
}

INSTANTIATE_TEST_SUITE_P(
    Rocm, SameScenario,
    ::testing::Values(Case{"rocprofv3_small_results.json", "rocprofv3-json", true, true},
                      Case{"rocprofv3_csv_A/300_kernel_trace.csv", "rocprofv3-csv", true, false},
                      Case{"rocprofv3_csv_B/300_memory_copy_trace.csv", "rocprofv3-csv", true,
                           false},
                      Case{"rocprofv3_csv_B", "rocprofv3-csv", true, false},
                      Case{"rocprofv3_csv_C/300_hip_api_trace.csv", "rocprofv3-csv", true, false},
                      Case{"rocprof_v1/results.csv", "rocprof-csv", false, false},
                      Case{"rocprof_v1/results.json", "rocprof-json", true, true},
                      Case{"rocprof_v1/rpl_data/hcc_ops_trace.txt", "rocprof-raw", true, true},
                      Case{"rocprof_v1/rpl_data/hip_api_trace.txt", "rocprof-raw", true, true},
                      Case{"rocprof_v1/results.stats.csv", "rocprof-stats", false, false}),
    [](const ::testing::TestParamInfo<Case>& param) {
      std::string name = param.param.path;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(RocprofStats, SummaryOnlySourceGivesTotalsAndSaysWhatItLacks) {
  model::Trace t = Load(kData + "/rocprof_v1/results.stats.csv");
  EXPECT_TRUE(t.summary_only());
  auto st = analysis::ComputeStats(t, {});
  EXPECT_EQ(st.kernels[0].avg_ns, 21000);
  EXPECT_EQ(st.kernels[0].median_ns, -1);  // not in the file
  EXPECT_EQ(st.kernels[0].min_ns, -1);
  model::Trace api = Load(kData + "/rocprof_v1/results.hip_stats.csv");
  auto st2 = analysis::ComputeStats(api, {});
  ASSERT_EQ(st2.api.size(), 2u);
  EXPECT_EQ(st2.api[0].name, "hipMemcpy");
}

TEST(RocprofDb, GivesTheSameScenarioWithCopySizesFromTheCallArguments) {
  model::Trace t = Load(import::testing::MakeDb(kData + "/rocprof_results_db.sql", "", "results.db"));
  EXPECT_EQ(t.meta.format, "rocprof-db");
  auto st = analysis::ComputeStats(t, {});
  ASSERT_EQ(st.kernels.size(), 2u);
  EXPECT_EQ(st.kernels[0].total_ns, 42000);
  ASSERT_EQ(st.memops.size(), 2u);
  EXPECT_EQ(st.memops[0].bytes, 4096);
  EXPECT_EQ(st.memops[1].bytes, 64);
  for (size_t i = 0; i < t.kernels.size(); ++i) EXPECT_NE(t.kernels.launch[i], model::kNoRow);
}

TEST(NsysImporter, StatsMatchTheFixture) {
  model::Trace t = Load(import::testing::MakeDb(kData + "/nsys_small.sql"));
  auto st = analysis::ComputeStats(t, {});
  ASSERT_EQ(st.kernels.size(), 2u);
  EXPECT_EQ(st.kernels[0].name, "ampere_sgemm_128x64_nn");
  EXPECT_EQ(st.kernels[1].name, "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(st.kernels[1].total_ns, 4000);
  ASSERT_EQ(st.memops.size(), 3u);
  EXPECT_EQ(st.memops[0].pageable, 1u);
  EXPECT_EQ(st.memops[1].pinned, 1u);
  ASSERT_EQ(st.os_runtime.size(), 1u);
  EXPECT_EQ(st.os_runtime[0].total_ns, 400);
  for (const auto& a : st.api) EXPECT_NE(a.name, "ioctl");
}

TEST(RpdImporter, StatsCountBlitKernelsAsKernels) {
  model::Trace t = Load(import::testing::MakeDb(kData + "/rpd_small.sql", "", "trace.rpd"));
  auto st = analysis::ComputeStats(t, {});
  ASSERT_EQ(st.kernels.size(), 3u);
  EXPECT_EQ(st.kernels[0].name, "gemm_kernel");
  EXPECT_EQ(st.kernels[0].total_ns, 22000);
  EXPECT_EQ(st.kernel_total_ns, 27000);
  ASSERT_EQ(st.counters.size(), 1u);
  EXPECT_EQ(st.counters[0].mean, 1250);
}

}  // namespace
}  // namespace import_stats_test
}  // namespace gpuscope
