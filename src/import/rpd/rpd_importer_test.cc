// rpd importer tests on the hand-made file tests/data/rpd_small.sql (expected values in its
// generator, make_sql_fixtures.py) and variants of it: schema v3, gzip, bad input.

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/formats.h"
#include "import/registry.h"

namespace gpuscope::import::rpd {
namespace rpd_importer_test {  // this file's helpers, apart in a unity build
namespace {

using model::MemopKind;
using model::MemoryKind;
using testing::Find;
using testing::Load;
using testing::MakeDb;

const std::string kFixture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/rpd_small.sql";

TEST(RpdImporter, ReadsOpsApiMarkersMonitorAndAutograd) {
  model::Trace t = Load(MakeDb(kFixture, "", "trace.rpd"));
  EXPECT_EQ(t.meta.format, "rpd");
  EXPECT_EQ(t.meta.format_version, "schema v2");
  EXPECT_EQ(t.meta.clock, "CLOCK_MONOTONIC (ns)");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 2);
  EXPECT_EQ(t.devices[0].vendor, model::Vendor::kAmd);

  ASSERT_EQ(t.kernels.size(), 4u);
  size_t gemm = Find(t, t.kernels, "gemm_kernel");
  ASSERT_NE(gemm, SIZE_MAX);
  EXPECT_EQ(t.kernels.dur_ns[gemm], 10000);
  EXPECT_EQ(t.kernels.grid[gemm][0], 4096u);
  EXPECT_EQ(t.kernels.block[gemm][0], 256u);
  EXPECT_EQ(t.kernels.shared_mem[gemm], 16384u);
  EXPECT_EQ(t.kernels.device[gemm], 2);
  size_t blit = Find(t, t.kernels, "__amd_rocclr_copyBuffer");
  EXPECT_EQ(t.kernels.flags[blit], model::kKernelIsCopy);
  size_t graph = Find(t, t.kernels, "graph_kernel");  // a Task op: no kernelapi row, still linked
  ASSERT_NE(t.kernels.launch[graph], model::kNoRow);
  EXPECT_EQ(t.str(t.api.name[t.kernels.launch[graph]]), "hipGraphLaunch");
  for (size_t i = 0; i < t.kernels.size(); ++i) EXPECT_NE(t.kernels.launch[i], model::kNoRow);

  ASSERT_EQ(t.memops.size(), 3u);
  EXPECT_EQ(t.memops.kind[0], MemopKind::kHtoD);
  EXPECT_EQ(t.memops.bytes[0], 1 << 20);
  EXPECT_EQ(t.memops.src[0], MemoryKind::kHost);  // pinning never recorded by ROCm tracers
  EXPECT_EQ(t.memops.kind[1], MemopKind::kMemset);
  EXPECT_EQ(t.memops.kind[2], MemopKind::kDtoH);
  EXPECT_EQ(t.memops.bytes[2], -1);  // size written as the text '': unknown, never 0
  EXPECT_EQ(t.str(t.api.name[t.memops.launch[2]]), "hipMemcpy");

  EXPECT_EQ(t.api.size(), 8u);  // two overhead rows left out
  EXPECT_EQ(Find(t, t.api, "OpTable::writeRows"), SIZE_MAX);
  EXPECT_EQ(t.record_counts["rpd tracer overhead rows (left out)"], 2u);
  EXPECT_EQ(t.api.domain[Find(t, t.api, "hsa_signal_wait_scacquire")], model::ApiDomain::kHsa);

  size_t inference = Find(t, t.cpu, "inference");
  ASSERT_NE(inference, SIZE_MAX);
  EXPECT_EQ(t.cpu.kind[inference], model::CpuRangeKind::kAnnotation);
  size_t mm = Find(t, t.cpu, "aten::mm");
  ASSERT_NE(mm, SIZE_MAX);
  EXPECT_EQ(t.cpu.kind[mm], model::CpuRangeKind::kOp);
  EXPECT_EQ(t.cpu.start_ns[mm], 1'010'000);
  EXPECT_EQ(t.cpu.dur_ns[mm], 6'000);
  EXPECT_EQ(t.api.enclosing_op[t.kernels.launch[gemm]], mm);
  ASSERT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.str(t.instants.name[0]), "step");
  EXPECT_EQ(t.gpu_ranges.size(), 1u);  // the Marker op is not work
  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.str(t.counters.name[0]), "gpu0 sclk");
  EXPECT_EQ(t.counters.value[1], 1700);
  EXPECT_TRUE(t.problems.empty());
}

// gpuscope's packed Python frames (format/rpd_python_frames.h): read back on their thread; a row
// whose data breaks off keeps the frames before the break and says so once.
TEST(RpdImporter, PackedPythonFramesAndADamagedRow) {
  // Frame 1: start 5, dur 5, name id 1, python id 1, parent -1; then a varint that never ends.
  model::Trace t = Load(MakeDb(kFixture,
                               "CREATE TABLE ext_gpuscope_python (first_row integer NOT NULL "
                               "PRIMARY KEY, pid integer NOT NULL, tid integer NOT NULL, frames "
                               "integer NOT NULL, data blob NOT NULL); INSERT INTO "
                               "ext_gpuscope_python VALUES (0, 7, 8, 2, X'0a0a02020380');",
                               "python.rpd"));
  ASSERT_EQ(t.python.size(), 1u);
  EXPECT_EQ(t.python.start_ns[0], 5);
  EXPECT_EQ(t.python.dur_ns[0], 5);
  EXPECT_EQ(t.python.python_id[0], 1);
  EXPECT_EQ(t.python.python_parent_id[0], -1);
  EXPECT_EQ(t.tracks[t.python.track[0]].tid, 8);
  EXPECT_EQ(t.problems.total(), 1u);
}

// Schema v3: marker text and args live in rocpd_ustring.
TEST(RpdImporter, SchemaV3ReadsMarkerTextFromUstring) {
  model::Trace t =
      Load(MakeDb(kFixture,
                  "UPDATE rocpd_metadata SET value = '3' WHERE tag = 'schema_version';"
                  "CREATE TABLE rocpd_ustring (id integer PRIMARY KEY, string varchar(4096));"
                  "INSERT INTO rocpd_ustring VALUES (77, 'decode step');"
                  "UPDATE rocpd_api SET args_id = 77 WHERE id = 2147483649;",
                  "v3.rpd"));
  EXPECT_EQ(t.meta.format_version, "schema v3");
  EXPECT_NE(Find(t, t.cpu, "decode step"), SIZE_MAX);
}

TEST(RpdImporter, ReadsGzipCompressedFiles) {
  std::string plain = MakeDb(kFixture, "", "trace.rpd");
  std::string gz = plain + ".gz";
  std::string bytes = testing::ReadText(plain);
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  model::Trace t = Load(gz);
  EXPECT_EQ(t.kernels.size(), 4u);
  EXPECT_EQ(t.memops.size(), 3u);
}

TEST(RpdImporter, MonitorOnlyFileKeepsItsCounters) {
  model::Trace t =
      Load(MakeDb(kFixture, "DELETE FROM rocpd_op; DELETE FROM rocpd_api;", "monitor.rpd"));
  EXPECT_EQ(t.kernels.size(), 0u);
  EXPECT_EQ(t.counters.size(), 2u);
}

TEST(RpdBadInput, EmptyTraceIsOneLine) {
  std::string path =
      MakeDb(kFixture, "DELETE FROM rocpd_op; DELETE FROM rocpd_api; DELETE FROM rocpd_monitor;",
             "empty.rpd");
  auto r = ImportTrace(path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("holds no events"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST(RpdBadInput, NonNumericMonitorValueIsCounted) {
  model::Trace t =
      Load(MakeDb(kFixture, "UPDATE rocpd_monitor SET value = 'n/a' WHERE id = 1;", "bad.rpd"));
  EXPECT_EQ(t.counters.size(), 1u);
  EXPECT_TRUE(t.problems.entries().count("rpd.bad_monitor_value"));
}

}  // namespace
}  // namespace rpd_importer_test
}  // namespace gpuscope::import::rpd
