// Nsight Systems importer tests on the hand-made export tests/data/nsys_small.sql (values in
// its generator, make_sql_fixtures.py) and on damaged or unusual variants of it.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/formats.h"
#include "import/registry.h"

namespace gpuscope::import::nsys {
namespace nsys_importer_test {  // this file's helpers, apart in a unity build
namespace {

using model::MemopKind;
using model::MemoryKind;
using testing::MakeDb;

const std::string kFixture = std::string(GPUSCOPE_TEST_DATA_DIR) + "/nsys_small.sql";

model::Trace Load(const std::string& extra_sql = "") {
  return testing::Load(MakeDb(kFixture, extra_sql));
}

// --cuda-memory-usage: device allocations and frees become GPU memory events on the thread of
// the runtime call of their correlation id; pinned memory is counted, not the GPU's.
TEST(NsysImporter, MemoryUsageEventsAreTheGpuMemoryTimeline) {
  model::Trace t = Load(
      "CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES (0, 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION', "
      "'Allocation');"
      "INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES (1, 'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION', "
      "'Deallocation');"
      "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER, "
      "deviceId INTEGER, contextId INTEGER, address INTEGER, pc INTEGER, bytes INTEGER, memKind "
      "INTEGER, memoryOperationType INTEGER, correlationId INTEGER);"
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (150000, 281546145660928, 0, 1, 4096, 0, "
      "1048576, 2, 1, NULL);"
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (100500, 281546145660928, 0, 1, 4096, 0, "
      "1048576, 2, 0, 13);"
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (100600, 281546145660928, 0, 1, 8192, 0, "
      "64, 1, 0, 13);");
  ASSERT_EQ(t.memory.size(), 2u);
  EXPECT_EQ(t.memory.ts_ns[0], 100500);  // in time order
  EXPECT_EQ(t.memory.bytes[0], 1048576);
  EXPECT_EQ(t.memory.device[0], 0);
  EXPECT_EQ(t.memory.bytes[1], -1048576);
  size_t call = testing::Find(t, t.api, "cudaMemcpyAsync");
  ASSERT_NE(call, SIZE_MAX);
  EXPECT_EQ(t.memory.track[0], t.api.track[call]);
  EXPECT_EQ(
      t.record_counts["memory usage events of pinned, managed or static memory (not modelled)"],
      1u);
}

TEST(NsysImporter, ReadsEveryKindOfEvent) {
  model::Trace t = Load();
  EXPECT_EQ(t.meta.format, "nsys");
  EXPECT_EQ(t.meta.format_version, "export schema 3.24.0");
  EXPECT_EQ(t.meta.producer, "NVIDIA Nsight Systems 2025.5.2.266");
  EXPECT_EQ(t.meta.base_time_ns, 1767718840395831670);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].compute_units, 132);
  EXPECT_EQ(t.devices[0].compute_major, 9);

  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.str(t.kernels.name[0]), "_Z6vecAddPfS_S_i");  // mangled kept; stats demangles
  EXPECT_EQ(t.kernels.dur_ns[1], 3000);
  EXPECT_EQ(t.kernels.grid[2][1], 16u);
  EXPECT_EQ(t.kernels.shared_mem[2], 16384u + 1024u);
  EXPECT_EQ(t.kernels.registers[2], 128u);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_NE(t.kernels.launch[i], model::kNoRow);
    EXPECT_EQ(t.str(t.api.name[t.kernels.launch[i]]), "cudaLaunchKernel");  // _v7000 stripped
  }

  ASSERT_EQ(t.memops.size(), 3u);  // sorted by start: HtoD, memset, DtoH
  EXPECT_EQ(t.memops.kind[0], MemopKind::kHtoD);
  EXPECT_EQ(t.memops.src[0], MemoryKind::kPageable);
  EXPECT_EQ(t.memops.dst[0], MemoryKind::kDevice);
  EXPECT_EQ(t.memops.bytes[0], 1 << 20);
  EXPECT_EQ(t.str(t.memops.name[0]), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(t.memops.kind[1], MemopKind::kMemset);
  EXPECT_EQ(t.str(t.memops.name[1]), "Memset (Device)");
  EXPECT_EQ(t.memops.kind[2], MemopKind::kDtoH);
  EXPECT_EQ(t.memops.dst[2], MemoryKind::kPinned);
  EXPECT_EQ(t.str(t.api.name[t.memops.launch[2]]), "cudaMemcpy");

  size_t drv = testing::Find(t, t.api, "cuCtxGetCurrent");
  ASSERT_NE(drv, SIZE_MAX);
  EXPECT_EQ(t.api.domain[drv], model::ApiDomain::kDriver);
  size_t osrt = testing::Find(t, t.api, "ioctl");
  ASSERT_NE(osrt, SIZE_MAX);
  EXPECT_EQ(t.api.domain[osrt], model::ApiDomain::kOs);

  // NVTX: "forward" is a user annotation, the emit_nvtx range is the op aten::mm, and the
  // launch inside it is attributed to it.
  ASSERT_EQ(t.cpu.size(), 2u);
  EXPECT_EQ(t.str(t.cpu.name[0]), "forward");
  EXPECT_EQ(t.cpu.kind[0], model::CpuRangeKind::kAnnotation);
  EXPECT_EQ(t.str(t.cpu.name[1]), "aten::mm");
  EXPECT_EQ(t.cpu.kind[1], model::CpuRangeKind::kOp);
  model::RowId mm_launch = t.kernels.launch[2];
  EXPECT_EQ(t.api.enclosing_op[mm_launch], 1u);
  ASSERT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.str(t.instants.name[0]), "checkpoint");

  ASSERT_EQ(t.gpu_ranges.size(), 1u);
  EXPECT_EQ(t.gpu_ranges.kind[0], model::GpuRangeKind::kSync);
  EXPECT_EQ(t.str(t.gpu_ranges.name[0]), "Context sync");

  const model::Track& main = t.tracks[t.api.track[0]];
  EXPECT_EQ(main.pid, 4242);
  EXPECT_EQ(main.tid, 4242);
  EXPECT_EQ(t.str(main.name), "python3");
  EXPECT_EQ(t.record_counts["nsys profiler overhead ranges"], 1u);
  EXPECT_EQ(t.record_counts["NVTX NvtxDomainCreate records"], 1u);
  // Memset present here; the tables the fixture lacks are reported as not collected.
  EXPECT_TRUE(t.meta.not_collected.empty());
  EXPECT_TRUE(t.problems.empty());
}

// A stream wait names the event record it waited for: by eventSyncId where the export has it,
// else (older exports, event ids reused by every record of one cudaEvent_t) the process's latest
// record of that event id before the wait.
TEST(NsysImporter, StreamWaitsNameTheEventRecordTheyWaitedFor) {
  const std::string pid = "281546145660928";
  auto record = [&](int stream, int corr, int event, const char* sync) {
    return "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, " + std::to_string(stream) +
           ", " + std::to_string(corr) + ", " + pid + ", " + std::to_string(event) + ", " + sync +
           ");";
  };
  auto wait = [&](int start, int corr, int event, const char* sync) {
    return "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (" + std::to_string(start) +
           ", " + std::to_string(start + 100) + ", 0, 1, 7, " + std::to_string(corr) + ", " + pid +
           ", 2, " + std::to_string(event) + ", " + sync + ");";
  };
  model::Trace t = Load(
      "INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (2, "
      "'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync');"
      "ALTER TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ADD COLUMN eventSyncId INTEGER;"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL, contextId "
      "INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
      "eventId INTEGER NOT NULL, eventSyncId INTEGER);" +
      record(3, 10, 5, "NULL") + record(5, 30, 5, "NULL") + record(11, 45, 6, "99") +
      wait(110000, 20, 5, "NULL") + wait(120000, 40, 5, "NULL") + wait(130000, 50, 5, "99"));
  std::vector<std::tuple<uint64_t, uint64_t, int64_t>> waits;  // wait call, record call, stream
  for (size_t i = 0; i < t.gpu_ranges.size(); ++i) {
    if (t.gpu_ranges.waits_on_record[i] != model::kNoCorrelation)
      waits.emplace_back(t.gpu_ranges.correlation[i], t.gpu_ranges.waits_on_record[i],
                         t.gpu_ranges.waits_on_stream[i]);
  }
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_EQ(waits[0], std::make_tuple(20u, 10u, int64_t{3}));   // event 5's record before it
  EXPECT_EQ(waits[1], std::make_tuple(40u, 30u, int64_t{5}));   // its later record
  EXPECT_EQ(waits[2], std::make_tuple(50u, 45u, int64_t{11}));  // linked by eventSyncId
}

// The memory-kind numbers are read from ENUM_CUDA_MEM_KIND, never assumed: renumbering the
// enumeration (and the rows that use it) must not change what is imported.
TEST(NsysImporter, EnumerationsComeFromTheFile) {
  model::Trace t = Load(
      "UPDATE ENUM_CUDA_MEM_KIND SET id = id + 100;"
      "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = srcKind + 100, dstKind = dstKind + 100;"
      "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET memKind = memKind + 100;"
      "UPDATE ENUM_CUDA_MEMCPY_OPER SET id = id + 50; UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET "
      "copyKind = copyKind + 50;");
  ASSERT_EQ(t.memops.size(), 3u);
  EXPECT_EQ(t.memops.kind[0], MemopKind::kHtoD);
  EXPECT_EQ(t.memops.src[0], MemoryKind::kPageable);
  EXPECT_EQ(t.memops.dst[2], MemoryKind::kPinned);
}

TEST(NsysImporter, MissingEnumTableLeavesKindsUnknownAndSaysSo) {
  model::Trace t = Load("DROP TABLE ENUM_CUDA_MEM_KIND;");
  EXPECT_EQ(t.memops.src[0], MemoryKind::kUnknown);
  EXPECT_TRUE(t.problems.entries().count("nsys.missing_enum_table"));
}

// Older exports (DLProf era) have no ENUM_CUDA_MEMCPY_OPER / ENUM_NSYS_EVENT_TYPE: copy
// directions and NVTX ranges come from the public enumerations, and the import says so.
TEST(NsysImporter, OlderExportWithoutEnumTablesKeepsCopiesAndRanges) {
  model::Trace t = Load("DROP TABLE ENUM_CUDA_MEMCPY_OPER; DROP TABLE ENUM_NSYS_EVENT_TYPE;");
  ASSERT_EQ(t.memops.size(), 3u);
  EXPECT_EQ(t.memops.kind[0], MemopKind::kHtoD);
  EXPECT_EQ(t.memops.src[0], MemoryKind::kPageable);  // ENUM_CUDA_MEM_KIND is still there
  ASSERT_EQ(t.cpu.size(), 2u);
  EXPECT_EQ(t.str(t.cpu.name[1]), "aten::mm");
  EXPECT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.problems.entries().at("nsys.builtin_enum").count, 2u);
}

TEST(NsysImporter, AbsentTablesAreReportedAsNotCollected) {
  model::Trace t = Load("DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET; DROP TABLE NVTX_EVENTS;");
  EXPECT_EQ(t.memops.size(), 2u);
  ASSERT_EQ(t.meta.not_collected.size(), 2u);
  EXPECT_NE(t.meta.not_collected[0].find("CUPTI_ACTIVITY_KIND_MEMSET"), std::string::npos);
}

// Older/newer exports: extra columns are ignored, missing optional ones read as absent, and a
// table without its required columns is skipped with a counted problem.
TEST(NsysImporter, SchemaDifferences) {
  model::Trace t = Load(
      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN tensorSizeMinusOneElements INTEGER;"
      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN registersPerThread;"
      "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET DROP COLUMN correlationId;");
  EXPECT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.kernels.registers[2], 0u);
  EXPECT_EQ(t.memops.size(), 2u);
  EXPECT_TRUE(t.problems.entries().count("nsys.table_missing_columns"));
}

// Two processes with the same correlation ids: kernels link only within their process.
TEST(NsysImporter, CorrelationIsPerProcess) {
  const int64_t other_pid = ((1ll << 48) + (5000ll << 24));
  std::string sql = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (200000, 201000, 0, " +
                    std::to_string(other_pid + 5000) +
                    ", 10, 5, 0, NULL);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (202000, 204000, 0, 1, 7, 10, " +
                    std::to_string(other_pid) + ", 4, 4, 4, 0, 1, 1, 1, 1, 1, 1, 0, 0);";
  model::Trace t = Load(sql);
  ASSERT_EQ(t.kernels.size(), 4u);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    ASSERT_NE(t.kernels.launch[i], model::kNoRow);
    const auto& api_track = t.tracks[t.api.track[t.kernels.launch[i]]];
    EXPECT_EQ(api_track.pid, t.kernels.start_ns[i] == 202000 ? 5000 : 4242);
  }
}

// ---- bad input: one line naming the file, nothing imported ----

std::string ImportError(const std::string& path) {
  auto r = ImportTrace(path, {});
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  return r.status().message();
}

// DIAGNOSTIC_EVENT: the tracer's warnings and errors about the process that ran GPU work are
// kept, once each, on one line; its notes about unused APIs, its info lines and what it says of
// other processes are not (issue 51: the tracer's own word that it lost events).
TEST(NsysImporter, TheTracersWarningsAboutTheGpuProcessAreKept) {
  model::Trace t = Load(
      "CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER, "
      "severity INTEGER, text TEXT, globalPid INTEGER);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (1, 1, 1, 2, 'Not all CUDA events might have been\n"
      "collected.', 281546145660928);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (2, 1, 1, 2, 'Not all CUDA events might have been\n"
      "collected.', 281546145660928);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (3, 1, 1, 3, 'CUDA device 0: Unified Memory cannot be "
      "traced.', 281546145660928);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (4, 1, 1, 2, 'No NVTX events collected. Does the "
      "process use NVTX?', 281546145660928);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (5, 1, 1, 1, 'Profiling has started.', "
      "281546145660928);"
      "INSERT INTO DIAGNOSTIC_EVENT VALUES (6, 1, 1, 2, 'Not all OS runtime events might have "
      "been collected.', 999);");
  EXPECT_EQ(t.meta.tracer_messages,
            (std::vector<std::string>{"Not all CUDA events might have been collected.",
                                      "CUDA device 0: Unified Memory cannot be traced. (error)"}));
}

// CUPTI's overhead records: the profiler's own are its overhead, with their time; the driver's
// ("Command buffer full (CUDA)": a full launch queue) are the program's, counted apart.
TEST(NsysImporter, OnlyTheProfilersOwnOverheadRecordsAreItsOverhead) {
  model::Trace t = Load(
      "CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (3, 'OVERHEAD_CUPTI_BUFFER_FLUSH', "
      "'Buffer flush (Profiler)');"
      "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (8, 'OVERHEAD_COMMAND_BUFFER_FULL', "
      "'Command buffer full (CUDA)');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (start INTEGER, end INTEGER, eventClass INTEGER, "
      "globalTid INTEGER, correlationId INTEGER, nameId INTEGER, overheadType INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (110000, 112000, 103, 1, 0, 0, 3);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES ('abc', x'00ff', 103, 1, 0, 0, 3);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (5000, 905000, 103, 1, 0, 0, 8);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (6000, 906000, 103, 1, 0, 0, 8);");
  EXPECT_EQ(t.record_counts["CUPTI overhead ranges"], 2u);
  EXPECT_EQ(t.record_counts["CUDA driver ranges (JIT, module loading, command buffer full)"], 2u);
  EXPECT_EQ(t.meta.profiler_overhead_ns, 2000);
  // A range the file stretches over the whole clock counts only the trace's span (it had read
  // "9223372036.855 s of overhead; without the tracer the run takes about -9223372036.855 s").
  model::Trace wide = Load(
      "CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (3, 'B', 'Buffer flush (Profiler)');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (start INTEGER, end INTEGER, overheadType "
      "INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (-9223372036854775807, "
      "9223372036854775807, 3);");
  const auto [lo, hi] = wide.TimeSpan();
  EXPECT_EQ(wide.meta.profiler_overhead_ns, hi - lo);
}

TEST(NsysBadInput, SqliteThatIsNotATrace) {
  std::string path = MakeDb("", "CREATE TABLE users (id INTEGER, name TEXT);", "app.db");
  std::string msg = ImportError(path);
  EXPECT_NE(msg.find("not a trace format"), std::string::npos) << msg;
  EXPECT_NE(msg.find("users"), std::string::npos) << msg;
}

TEST(NsysBadInput, ExportWithNoEvents) {
  std::string path = MakeDb("",
                            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                            "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);");
  EXPECT_NE(ImportError(path).find("holds no events"), std::string::npos);
}

TEST(NsysBadInput, CorruptDatabase) {
  std::string path = MakeDb(kFixture);
  {
    // Keep the header, overwrite the pages behind it: the schema can no longer be read.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    std::string junk(8000, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  std::string msg = ImportError(path);
  EXPECT_TRUE(msg.find("corrupt") != std::string::npos ||
              msg.find("not an SQLite") != std::string::npos)
      << msg;
}

TEST(NsysBadInput, LockedDatabase) {
  std::string path = MakeDb(kFixture);
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  auto db = base::SqliteDb::OpenReadOnly(path, /*busy_timeout_ms=*/50);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("locked"), std::string::npos) << db.status().message();
  sqlite3_exec(writer, "ROLLBACK;", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
}

TEST(NsysBadInput, ReportFileNeedsExport) {
  std::string path = testing::TempDir() + "/profile.nsys-rep";
  std::ofstream(path) << "NVIDIA Nsight Systems report (binary)";
  std::string msg = ImportError(path);
  EXPECT_NE(msg.find("nsys export --type sqlite --output " + path.substr(0, path.size() - 9) +
                     ".sqlite " + path),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace nsys_importer_test
}  // namespace gpuscope::import::nsys
