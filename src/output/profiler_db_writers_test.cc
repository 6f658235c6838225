// The nsys export and rocpd writers on a trace built by hand, read back with SQL over the
// written tables (the importers are another layer: their round trips are the golden tests').

#include "output/profiler_db_writers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/sqlite_db.h"
#include "base/temp_dir.h"
#include "format/rpd_python_frames.h"
#include "model/op_args.h"

namespace gpuscope::output {
namespace {

// One thread launching one kernel from inside aten::mm (shapes recorded) in a ProfilerStep, a
// memset, a mark and a Python frame (which neither format holds).
model::Trace MakeTrace() {
  model::Trace t;
  t.meta.path = "t.json";
  t.meta.format = "kineto";
  model::Device d;
  d.id = 0, d.name = "NVIDIA H100", d.vendor = model::Vendor::kNvidia, d.compute_units = 132;
  t.devices.push_back(d);
  model::TrackId cpu = t.InternTrack(model::TrackKind::kCpuThread, "4242", "4243");
  t.tracks[cpu].pid = 4242, t.tracks[cpu].tid = 4243;
  model::TrackId gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  t.tracks[gpu].device = 0, t.tracks[gpu].tid = 7;
  model::CpuRangeRow step;
  step.start_ns = 1000, step.dur_ns = 9000, step.track = cpu;
  step.name = t.strings.Intern("ProfilerStep#3"), step.kind = model::CpuRangeKind::kAnnotation;
  t.cpu.Append(step);
  model::CpuRangeRow mm = step;
  mm.start_ns = 2000, mm.dur_ns = 3000, mm.name = t.strings.Intern("aten::mm");
  mm.kind = model::CpuRangeKind::kOp;
  mm.args = t.strings.Intern(model::EncodeOpArgs("[[2, 3], [3, 4]]", "[\"float\", \"float\"]", ""));
  t.cpu.Append(mm);
  model::ApiRow launch;
  launch.start_ns = 2500, launch.dur_ns = 500, launch.track = cpu, launch.correlation = 77;
  launch.name = t.strings.Intern("cudaLaunchKernel");
  t.api.Append(launch);
  model::KernelRow k;
  k.start_ns = 4000, k.dur_ns = 2000, k.track = gpu, k.device = 0, k.correlation = 77, k.launch = 0;
  k.name = t.strings.Intern("gemm_kernel");
  k.grid = {4, 1, 1}, k.block = {128, 1, 1};
  t.kernels.Append(k);
  model::MemopRow fill;
  fill.start_ns = 6500, fill.dur_ns = 100, fill.track = gpu, fill.device = 0, fill.bytes = 64;
  fill.kind = model::MemopKind::kMemset, fill.name = t.strings.Intern("Memset (Device)");
  t.memops.Append(fill);
  t.instants.Append(8000, t.strings.Intern("checkpoint"), cpu);
  model::PythonFrameRow frame;
  frame.start_ns = 1500, frame.dur_ns = 5000, frame.track = cpu;
  frame.name = t.strings.Intern("model.py(12): forward");
  t.python.Append(frame);
  return t;
}

uint64_t Dropped(const LossyWriteCounts& c, std::string_view what) {
  for (const auto& [w, n] : c.dropped)
    if (w == what) return n;
  return 0;
}

using WriteFn = base::StatusOr<LossyWriteCounts> (*)(const model::Trace&, const std::string&);

// A trace written as `name` in a fresh directory (removed with this), and opened for reading.
struct Written {
  base::TempDir dir;
  LossyWriteCounts counts;
  base::SqliteDb db;
};

// Null (and the test failed) when the directory, the writer or the opening fails.
std::unique_ptr<Written> WriteAndOpen(WriteFn write, const model::Trace& t, const char* name) {
  auto dir = base::TempDir::Create("gpuscope-db-writer");
  if (!dir.ok()) return ADD_FAILURE() << dir.status().message(), nullptr;
  std::string path = dir->path() + "/" + name;
  auto counts = write(t, path);
  if (!counts.ok()) return ADD_FAILURE() << counts.status().message(), nullptr;
  auto db = base::SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return ADD_FAILURE() << db.status().message(), nullptr;
  return std::make_unique<Written>(Written{std::move(*dir), *counts, std::move(*db)});
}

TEST(NsysSqliteWriter, WritesCallsKernelsFillsAndEmitNvtxRanges) {
  auto w = WriteAndOpen(WriteNsysSqlite, MakeTrace(), "t.sqlite");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->counts.gpu_ops, 2u);
  EXPECT_EQ(w->counts.api, 1u);
  EXPECT_EQ(w->counts.host_ranges, 3u);  // two ranges and the mark
  EXPECT_EQ(Dropped(w->counts, "Python frames"), 1u);
  const base::SqliteDb* db = &w->db;
  // The kernel links to its launch by correlation id; both in the same process (globalTid layout).
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
                         "CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId AND "
                         "k.globalPid = (r.globalTid >> 24) << 24",
                         -1),
            1);
  EXPECT_EQ(db->QueryInt("SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME", -1),
            (int64_t{4242} << 24) | 4243);
  EXPECT_EQ(db->QueryText("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                          "s.id = k.demangledName"),
            "gemm_kernel");
  EXPECT_EQ(db->QueryInt("SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL", -1), 2000);
  EXPECT_EQ(db->QueryInt("SELECT streamId FROM CUPTI_ACTIVITY_KIND_MEMSET", -1), 7);
  EXPECT_EQ(db->QueryText("SELECT text FROM NVTX_EVENTS WHERE text IS NOT NULL"),
            "aten::mm, op_id = 2, sizes = [[2, 3], [3, 4]]");
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM NVTX_EVENTS e JOIN ENUM_NSYS_EVENT_TYPE y ON "
                         "y.id = e.eventType WHERE y.name = 'NvtxMark' AND e.end IS NULL",
                         -1),
            1);
  EXPECT_EQ(db->QueryText("SELECT name FROM TARGET_INFO_GPU WHERE id = 0"), "NVIDIA H100");
}

// A recorded stream wait (Kineto's "Stream Wait Event": stream 7 waits for the event recorded on
// stream 9 by call 70) becomes a stream-wait sync linked by eventSyncId to a CUDA event record on
// the recording stream with the record call's correlation; a context sync stays a plain sync.
TEST(NsysSqliteWriter, WritesARecordedStreamWaitAsASyncAndItsEventRecord) {
  model::Trace t = MakeTrace();
  model::TrackId gpu = t.kernels.track[0];
  model::GpuRangeRow wait;
  wait.start_ns = 3000, wait.dur_ns = 10, wait.track = gpu, wait.correlation = 78;
  wait.name = t.strings.Intern("Stream Wait Event"), wait.kind = model::GpuRangeKind::kSync;
  wait.waits_on_record = 70, wait.waits_on_stream = 9;
  t.gpu_ranges.Append(wait);
  model::GpuRangeRow sync = wait;
  sync.start_ns = 7000, sync.correlation = 79, sync.name = t.strings.Intern("Context Sync");
  sync.waits_on_record = model::kNoCorrelation, sync.waits_on_stream = -1;
  t.gpu_ranges.Append(sync);
  auto w = WriteAndOpen(WriteNsysSqlite, t, "t.sqlite");
  ASSERT_TRUE(w);
  EXPECT_EQ(Dropped(w->counts, "recorded stream waits"), 0u);
  const base::SqliteDb* db = &w->db;
  EXPECT_EQ(db->QueryText("SELECT y.name || ' ' || s.streamId || ' ' || s.correlationId || ' <- ' "
                          "|| e.streamId || ' ' || e.correlationId FROM "
                          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s JOIN ENUM_CUPTI_SYNC_TYPE y ON "
                          "y.id = s.syncType JOIN CUPTI_ACTIVITY_KIND_CUDA_EVENT e ON "
                          "e.eventSyncId = s.eventSyncId"),
            "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT 7 78 <- 9 70");
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE "
                         "eventSyncId IS NULL AND correlationId = 79",
                         -1),
            1);
  // rocpd has no place for it: counted.
  auto rocpd = WriteRocpd(t, w->dir.path() + "/t.db");
  ASSERT_TRUE(rocpd.ok()) << rocpd.status().message();
  EXPECT_EQ(Dropped(*rocpd, "recorded stream waits"), 1u);
}

TEST(RocpdWriter, WritesSuffixedTablesTheirViewsAndRoctxRanges) {
  auto w = WriteAndOpen(WriteRocpd, MakeTrace(), "t.db");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->counts.gpu_ops, 1u);  // the memset has no rocpd record
  EXPECT_EQ(Dropped(w->counts, "memsets"), 1u);
  EXPECT_EQ(Dropped(w->counts, "Python frames"), 1u);
  // Read as an importer reads: through the views, which must be plain reads of one table.
  const base::SqliteDb* db = &w->db;
  std::string uuid = db->QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'");
  ASSERT_EQ(uuid.size(), 37u);
  EXPECT_TRUE(db->Has("rocpd_region" + uuid));
  EXPECT_EQ(db->QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'"), "3");
  // Dispatch -> launch region through the events' stack ids.
  EXPECT_EQ(db->QueryText("SELECT s.string FROM rocpd_kernel_dispatch k JOIN rocpd_event ke ON "
                          "ke.id = k.event_id JOIN rocpd_event re ON re.stack_id = ke.stack_id "
                          "JOIN rocpd_region r ON r.event_id = re.id JOIN rocpd_string s ON "
                          "s.id = r.name_id"),
            "cudaLaunchKernel");
  EXPECT_EQ(db->QueryText("SELECT display_name FROM rocpd_info_kernel_symbol"), "gemm_kernel");
  EXPECT_EQ(db->QueryText("SELECT json_extract(e.extdata, '$.message') FROM rocpd_region r JOIN "
                          "rocpd_event e ON e.id = r.event_id JOIN rocpd_string s ON s.id = "
                          "r.name_id WHERE s.string = 'roctxRangePushA' ORDER BY r.start LIMIT 1 "
                          "OFFSET 1"),
            "aten::mm, op_id = 2, sizes = [[2, 3], [3, 4]]");
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM rocpd_sample", -1), 1);
  EXPECT_EQ(db->QueryText("SELECT vendor_name FROM rocpd_info_agent"), "NVIDIA");
}

// The same trace gives the same file: the run's UUID comes from what was converted.
TEST(RocpdWriter, TheSameTraceGivesTheSameUuid) {
  model::Trace t = MakeTrace();
  auto dir = base::TempDir::Create("gpuscope-rocpd-writer");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteRocpd(t, dir->path() + "/a.db").ok());
  ASSERT_TRUE(WriteRocpd(t, dir->path() + "/b.db").ok());
  auto a = base::SqliteDb::OpenReadOnly(dir->path() + "/a.db");
  auto b = base::SqliteDb::OpenReadOnly(dir->path() + "/b.db");
  ASSERT_TRUE(a.ok() && b.ok());
  std::string q = "SELECT value FROM rocpd_metadata WHERE tag = 'guid'";
  EXPECT_EQ(a->QueryText(q), b->QueryText(q));
}

}  // namespace
}  // namespace gpuscope::output

namespace gpuscope::output {
namespace {

// The packed Python frames of gpuscope's .rpd (format/rpd_python_frames.h): every value back,
// extreme ones too, and a cut anywhere in the data read as damage, never as a made-up frame.
TEST(RpdPythonFrames, RoundTripExtremesAndEveryTruncation) {
  namespace py = format::rpd_python;
  std::vector<py::Frame> frames = {{1'000, 50, 3, 7, -1},
                                   {900, 0, 1, 8, 7},
                                   {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MIN, INT64_MAX},
                                   {INT64_MIN, 0, 0, -1, INT64_MIN}};
  std::string data;
  for (size_t i = 0; i < frames.size(); ++i)
    py::Append(data, i ? &frames[i - 1] : nullptr, frames[i]);
  py::Reader r(data);
  py::Frame f;
  for (const py::Frame& want : frames) {
    ASSERT_TRUE(r.Next(&f));
    EXPECT_EQ(f.start_ns, want.start_ns);
    EXPECT_EQ(f.dur_ns, want.dur_ns);
    EXPECT_EQ(f.name_id, want.name_id);
    EXPECT_EQ(f.python_id, want.python_id);
    EXPECT_EQ(f.parent_id, want.parent_id);
  }
  EXPECT_FALSE(r.Next(&f));
  EXPECT_FALSE(r.damaged());
  for (size_t cut = 1; cut < data.size(); ++cut) {
    py::Reader part(std::string_view(data).substr(0, cut));
    size_t n = 0;
    while (part.Next(&f)) ++n;
    EXPECT_LT(n, frames.size());
    // Frame boundaries end cleanly; any other cut is damage.
    size_t whole = 0;
    for (std::string prefix; whole < frames.size(); ++whole) {
      py::Append(prefix, whole ? &frames[whole - 1] : nullptr, frames[whole]);
      if (prefix.size() >= cut) {
        EXPECT_EQ(part.damaged(), prefix.size() != cut) << "cut at " << cut;
        break;
      }
    }
  }
}

}  // namespace
}  // namespace gpuscope::output
