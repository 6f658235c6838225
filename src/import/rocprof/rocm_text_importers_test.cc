// Tests of the ROCm importers of text and JSON outputs (rocprofv3 JSON and CSV, legacy rocprof
// results.csv / results.json / raw text / stats CSVs) on the fixtures of make_rocm_fixtures.py:
// one scenario written by every tool, so every format must give the same tables.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <string>

#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/registry.h"

namespace gpuscope::import::rocm {
namespace rocm_text_importers_test {  // this file's helpers, apart in a unity build
namespace {

using testing::Load;

const std::string kData = GPUSCOPE_TEST_DATA_DIR;

std::string ImportError(const std::string& path) {
  auto r = ImportTrace(path, {});
  EXPECT_FALSE(r.ok()) << path;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  return r.status().message();
}

TEST(Rocprofv3Json, ResolvesKindsAgentsMarkersAndCountsOtherRecords) {
  model::Trace t = Load(kData + "/rocprofv3_small_results.json");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 2);  // agent node id, not the handle
  EXPECT_EQ(t.devices[0].name, "AMD Instinct MI300X (gfx942)");
  EXPECT_EQ(t.kernels.registers[0], 64u);
  EXPECT_EQ(t.kernels.shared_mem[0], 1024u);
  EXPECT_EQ(t.kernels.grid[0][0], 65536u);
  ASSERT_EQ(t.cpu.size(), 1u);
  EXPECT_EQ(t.str(t.cpu.name[0]), "step");  // marker text from strings.marker_api
  ASSERT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.str(t.instants.name[0]), "begin");
  EXPECT_EQ(t.record_counts["rocprofv3 memory_allocation records (not modelled)"], 2u);
  EXPECT_EQ(t.str(t.process_names.at(300)), "python3 infer.py");
}

TEST(Rocprofv3Json, CutFileKeepsWholeRecordsAndSaysWhere) {
  model::Trace t = Load(kData + "/rocprofv3_cut_results.json");
  EXPECT_EQ(t.kernels.size(), 3u);
  EXPECT_NE(t.meta.import_error.find("truncated"), std::string::npos) << t.meta.import_error;
}

TEST(Rocprofv3Csv, ReadsOnlyItsOwnRunAndItsAllocations) {
  model::Trace t = Load(kData + "/rocprofv3_csv_C/300_kernel_trace.csv");
  EXPECT_EQ(t.kernels.size(), 3u);  // 999_kernel_trace.csv belongs to another process
  // memory_allocation_trace.csv: 4 kB on GPU agent 2 and its free (no agent, no size: the
  // block's), 64 B on the host agent 0 (counted, not the GPU's).
  ASSERT_EQ(t.memory.size(), 2u);
  EXPECT_EQ(t.memory.bytes[0], 4096);
  EXPECT_EQ(t.memory.addr[0], 0x7f0000001000u);
  EXPECT_EQ(t.memory.bytes[1], -4096);
  EXPECT_EQ(t.memory.device[1], 2);
  EXPECT_EQ(t.record_counts["host memory allocations (not device memory)"], 1u);
  EXPECT_NE(t.meta.format_version.find("300_marker_api_trace.csv"), std::string::npos);
  EXPECT_EQ(t.devices[0].id, 2);  // "Agent 2"
}

TEST(Rocprofv3Csv, DirectoryWithSeveralRunsAsksForOne) {
  auto r = ImportTrace(kData + "/rocprofv3_csv_C", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2 rocprofv3 CSV runs"), std::string::npos)
      << r.status().message();
}

TEST(Rocprofv3Csv, MissingColumnIsOneLine) {
  std::string dir = testing::TempDir();
  std::ofstream(dir + "/1_kernel_trace.csv")
      << "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Correlation_Id\"\n"
         "\"KERNEL_DISPATCH\",1,1,1\n";
  std::string msg = ImportError(dir + "/1_kernel_trace.csv");
  EXPECT_NE(msg.find("Start_Timestamp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Kernel_Name"), std::string::npos) << msg;
}

TEST(Rocprofv3Csv, BadTimestampsAreCountedAndSkipped) {
  std::string dir = testing::TempDir();
  std::ofstream(dir + "/kernel_trace.csv")
      << "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_"
         "Timestamp\",\"End_Timestamp\"\n"
         "\"KERNEL_DISPATCH\",1,1,\"k, with comma\",1,100,200\n"
         "\"KERNEL_DISPATCH\",1,1,\"k2\",2,abc,300\n";
  model::Trace t = Load(dir + "/kernel_trace.csv");
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.str(t.kernels.name[0]), "k, with comma");
  EXPECT_TRUE(t.problems.entries().count("rocprofv3_csv.bad_timestamp"));
}

TEST(RocprofLegacy, CounterModeCsvHasNoTimeline) {
  EXPECT_NE(ImportError(kData + "/rocprof_v1/counters.csv").find("counter mode"),
            std::string::npos);
}

TEST(RocprofLegacy, CutResultsJsonKeepsWholeEvents) {
  model::Trace t = Load(kData + "/rocprof_v1/cut_results.json");
  EXPECT_EQ(t.memops.size(), 2u);
  EXPECT_EQ(t.api.size(), 5u);
  EXPECT_FALSE(t.meta.import_error.empty());
}

TEST(RocprofLegacy, FragmentWithoutEventsIsRefused) {
  std::string path = testing::TempDir() + "/results.json";
  std::ofstream(path) << ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_"
                         "name\",\"sort_index\":0}\n";
  EXPECT_NE(ImportError(path).find("fragment"), std::string::npos);
}

TEST(RocprofStats, DomainSummaryIsRefused) {
  std::string path = testing::TempDir() + "/hip_domain_stats.csv";
  std::ofstream(path) << "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\","
                         "\"MinNs\",\"MaxNs\",\"StdDev\"\n"
                         "\"HIP_API\",13,458514859,35270373.769231,100.00,2300,352276613,9.7e+07\n";
  EXPECT_NE(ImportError(path).find("domain_stats"), std::string::npos);
}

TEST(RocprofDb, EmptyTablesAreRefused) {
  std::string path =
      testing::MakeDb("", "CREATE TABLE KERN (\"Index\" INTEGER, KernelName TEXT);", "results.db");
  EXPECT_NE(ImportError(path).find("no timed rows"), std::string::npos);
}

}  // namespace
}  // namespace rocm_text_importers_test
}  // namespace gpuscope::import::rocm
