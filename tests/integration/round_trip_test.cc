// The trace writers on a hand-built model holding every kind of event: Chrome JSON and .rpd
// read back by gpuscope's importers give the same model (round trip); the JSON is well formed
// for viewers (metadata, flows, exact times); events.csv has one row per event; the HTML
// report embeds its data safely.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "base/byte_sink.h"
#include "base/sqlite_db.h"
#include "base/temp_dir.h"
#include "format/chrome_trace.h"
#include "import/registry.h"
#include "model/linker.h"
#include "output/chrome_trace_writer.h"
#include "output/events_csv_writer.h"
#include "output/html_report.h"
#include "output/rpd_writer.h"

namespace gpuscope::output {
namespace round_trip_test {  // this file's helpers, apart in a unity build
namespace {

using model::ApiDomain;
using model::MemopKind;
using model::MemoryKind;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpuscope_writers_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every table filled, times far from 0 (an epoch-like clock), no two events of a table tied.
model::Trace EveryKindOfEvent() {
  model::Trace t;
  constexpr int64_t T0 = 1'700'000'000'000'000'123;
  auto cpu = t.InternTrack(model::TrackKind::kCpuThread, "4242", "4242");
  auto gpu = t.InternTrack(model::TrackKind::kGpuStream, "0", "7");
  auto gpu2 = t.InternTrack(model::TrackKind::kGpuStream, "1", "3");
  t.process_names[4242] = t.strings.Intern("python");
  t.tracks[cpu].name = t.strings.Intern("MainThread");
  for (int id : {0, 1}) {
    model::Device d;
    d.id = id, d.name = "NVIDIA H100 80GB HBM3", d.vendor = model::Vendor::kNvidia;
    t.devices.push_back(d);
  }
  auto api = [&](const char* name, int64_t start, int64_t dur, uint64_t corr, ApiDomain d) {
    model::ApiRow r;
    r.start_ns = T0 + start, r.dur_ns = dur, r.name = t.strings.Intern(name), r.track = cpu,
    r.correlation = corr, r.domain = d;
    t.api.Append(r);
  };
  auto kernel = [&](const char* name, int64_t start, int64_t dur, uint64_t corr,
                    model::TrackId track) {
    model::KernelRow r;
    r.start_ns = T0 + start, r.dur_ns = dur, r.name = t.strings.Intern(name), r.track = track,
    r.correlation = corr;
    r.device = static_cast<int16_t>(t.tracks[track].device);
    r.grid = {128, 2, 1}, r.block = {256, 1, 1}, r.registers = 32, r.shared_mem = 4096;
    t.kernels.Append(r);
  };
  auto cpu_range = [&](const char* name, int64_t start, int64_t dur, model::CpuRangeKind kind) {
    model::CpuRangeRow r;
    r.start_ns = T0 + start, r.dur_ns = dur, r.name = t.strings.Intern(name), r.track = cpu,
    r.kind = kind;
    t.cpu.Append(r);
  };
  cpu_range("ProfilerStep#1", 0, 100'000, model::CpuRangeKind::kAnnotation);
  cpu_range("aten::mm", 1'000, 20'000, model::CpuRangeKind::kOp);
  cpu_range("aten::empty", 30'000, 0, model::CpuRangeKind::kOp);  // zero length stays a range
  model::PythonFrameRow py;
  py.start_ns = T0 + 500, py.dur_ns = 60'000, py.name = t.strings.Intern("model.py(12): forward"),
  py.track = cpu;
  py.python_id = 5, py.python_parent_id = 2;
  t.python.Append(py);
  api("cudaLaunchKernel", 2'000, 3'000, 11, ApiDomain::kRuntime);
  kernel("gemm_kernel<float, 128>", 6'000, 9'001, 11, gpu);
  api("cuGraphLaunch", 21'000, 2'000, 12, ApiDomain::kDriver);  // one call, two kernels
  kernel("graph_kernel_a", 24'000, 1'500, 12, gpu);
  kernel("graph_kernel_b", 26'000, 1'700, 12, gpu2);
  api("cudaMemcpyAsync", 31'000, 4'000, 13, ApiDomain::kRuntime);
  model::MemopRow m;
  m.start_ns = T0 + 36'000, m.dur_ns = 2'500,
  m.name = t.strings.Intern("Memcpy HtoD (Pageable -> Device)"), m.track = gpu;
  m.correlation = 13, m.bytes = 1 << 20, m.device = 0, m.kind = MemopKind::kHtoD,
  m.src = MemoryKind::kPageable, m.dst = MemoryKind::kDevice;
  t.memops.Append(m);
  model::MemopRow fill;  // no launch call, size unknown
  fill.start_ns = T0 + 40'000, fill.dur_ns = 700, fill.name = t.strings.Intern("Memset (Device)"),
  fill.track = gpu2;
  fill.device = 1, fill.kind = MemopKind::kMemset, fill.dst = MemoryKind::kDevice;
  t.memops.Append(fill);
  api("hsa_signal_wait_scacquire", 45'000, 800, 0, ApiDomain::kHsa);
  api("ioctl", 47'000, 900, 0, ApiDomain::kOs);
  model::GpuRangeRow g;
  g.start_ns = T0 + 5'000, g.dur_ns = 30'000, g.name = t.strings.Intern("forward"), g.track = gpu,
  g.kind = model::GpuRangeKind::kAnnotation;
  t.gpu_ranges.Append(g);
  g.start_ns = T0 + 50'000, g.dur_ns = 1'000, g.name = t.strings.Intern("Stream Sync"),
  g.kind = model::GpuRangeKind::kSync, g.correlation = 99;
  t.gpu_ranges.Append(g);
  g.start_ns = T0 + 52'000, g.dur_ns = 300, g.name = t.strings.Intern("Marker"),
  g.kind = model::GpuRangeKind::kOther, g.correlation = 0;
  t.gpu_ranges.Append(g);
  auto counters = t.InternTrack(model::TrackKind::kOther, "monitor", "gpu0");
  t.counters.Append(T0 + 10'000, 1500, t.strings.Intern("gpu0 sclk"), counters);
  t.counters.Append(T0 + 20'000, 1700, t.strings.Intern("gpu0 sclk"), counters);
  t.instants.Append(T0 + 70'000, t.strings.Intern("checkpoint \"a\", b"), cpu);
  t.meta.path = "hand-built";
  t.meta.format = "test";
  model::LinkTrace(t);
  return t;
}

// A table's events as comparable tuples, times relative to the trace's first event.
template <typename Table, typename Extra>
auto Rows(const model::Trace& t, const Table& table, Extra extra) {
  int64_t origin = t.TimeSpan().first;
  std::vector<decltype(std::tuple_cat(std::make_tuple(int64_t{}, int64_t{}, std::string()),
                                      extra(size_t{0})))>
      out;
  for (size_t i = 0; i < table.size(); ++i) {
    out.push_back(std::tuple_cat(std::make_tuple(table.start_ns[i] - origin, table.dur_ns[i],
                                                 std::string(t.str(table.name[i]))),
                                 extra(i)));
  }
  return out;
}

// `names`: device, process and thread names kept too (not by events.csv, which has no place for
// them).
void ExpectSameModel(const model::Trace& a, const model::Trace& b, bool same_correlations,
                     bool keeps_names = true) {
  auto kernels = [](const model::Trace& t) {
    return Rows(t, t.kernels, [&](size_t i) {
      return std::make_tuple(t.kernels.device[i], t.kernels.grid[i], t.kernels.block[i],
                             t.kernels.launch[i] != model::kNoRow);
    });
  };
  EXPECT_EQ(kernels(a), kernels(b));
  auto memops = [](const model::Trace& t) {
    return Rows(t, t.memops, [&](size_t i) {
      return std::make_tuple(t.memops.kind[i], t.memops.src[i], t.memops.dst[i], t.memops.bytes[i],
                             t.memops.device[i], t.memops.launch[i] != model::kNoRow);
    });
  };
  EXPECT_EQ(memops(a), memops(b));
  auto api = [&](const model::Trace& t) {
    return Rows(t, t.api, [&](size_t i) {
      return std::make_tuple(t.api.domain[i], same_correlations ? t.api.correlation[i] : 0);
    });
  };
  EXPECT_EQ(api(a), api(b));
  auto cpu = [](const model::Trace& t) {
    return Rows(t, t.cpu, [&](size_t i) { return std::make_tuple(t.cpu.kind[i], t.cpu.depth[i]); });
  };
  EXPECT_EQ(cpu(a), cpu(b));
  auto py = [](const model::Trace& t) {
    return Rows(t, t.python, [&](size_t i) {
      return std::make_tuple(t.python.python_id[i], t.python.python_parent_id[i]);
    });
  };
  EXPECT_EQ(py(a), py(b));
  auto gr = [](const model::Trace& t) {
    return Rows(t, t.gpu_ranges, [&](size_t i) { return std::make_tuple(t.gpu_ranges.kind[i]); });
  };
  EXPECT_EQ(gr(a), gr(b));
  ASSERT_EQ(a.counters.size(), b.counters.size());
  for (size_t i = 0; i < a.counters.size(); ++i) {
    EXPECT_EQ(a.str(a.counters.name[i]), b.str(b.counters.name[i]));
    EXPECT_EQ(a.counters.value[i], b.counters.value[i]);
  }
  auto names = [](const model::Trace& t) {
    std::vector<std::string> out;
    for (const auto& d : t.devices)
      out.push_back(std::to_string(d.id) + " " + d.name + " " +
                    std::string(model::VendorName(d.vendor)));
    for (const auto& [pid, n] : t.process_names)
      out.push_back(std::to_string(pid) + " " + std::string(t.str(n)));
    for (const auto& tr : t.tracks) {
      if (tr.kind == model::TrackKind::kCpuThread && !t.str(tr.name).empty())
        out.push_back(std::string(t.str(tr.name)));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  if (keeps_names) {
    EXPECT_EQ(names(a), names(b));
  }
  ASSERT_EQ(a.instants.size(), b.instants.size());
  EXPECT_EQ(a.str(a.instants.name[0]), b.str(b.instants.name[0]));
}

TEST(ChromeTraceWriter, RoundTripKeepsEveryEvent) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("rt.json");
  auto sink = base::ByteSink::Create(path);
  ASSERT_TRUE(sink.ok());
  ChromeTraceOptions opt;
  opt.rows.push_back({"iterations",
                      format::chrome_trace::kCategoryIteration,
                      {{t.TimeSpan().first, 100'000, "iteration 1", ""}}});
  opt.rows.push_back({"critical path",
                      format::chrome_trace::kCategoryAnnotation,
                      {{t.TimeSpan().first, 50'000, "GPU kernels", "k on GPU 0 stream 7"}}});
  auto counts = WriteChromeTrace(t, opt, **sink);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->flows, 4u);  // 3 kernels + 1 copy launched by a call
  auto back = import::ImportTrace(path, {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameModel(t, *back, /*same_correlations=*/true);
  // Both derived rows are skipped when read back (counted under one name).
  EXPECT_EQ(back->record_counts["rows derived by gpuscope (iterations, annotations; skipped)"], 2u);
  EXPECT_EQ(back->meta.producer, "gpuscope convert, from test (hand-built)");
  EXPECT_NE(back->meta.clock.find("minus 1700000000000000123 ns"), std::string::npos)
      << back->meta.clock;
  std::string text = Slurp(path);
  // Times relative to the first event, 3 decimals; metadata for viewers; one flow pair per link.
  EXPECT_NE(text.find("\"ts\":0.000"), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"process_name\""), std::string::npos);
  // The source's names as they are; labels made up for viewers marked as such.
  EXPECT_NE(text.find("\"args\":{\"name\":\"python\"}"), std::string::npos);
  EXPECT_NE(text.find("\"args\":{\"name\":\"MainThread\"}"), std::string::npos);
  EXPECT_NE(text.find("\"args\":{\"name\":\"stream 7\",\"generated\":true}"), std::string::npos);
  EXPECT_NE(text.find("\"args\":{\"name\":\"GPU 0: NVIDIA H100 80GB HBM3\",\"generated\":true}"),
            std::string::npos);
  EXPECT_NE(text.find("\"grid\":[128,2,1]"), std::string::npos);
  EXPECT_NE(text.find("\"bp\":\"e\""), std::string::npos);
  std::remove(path.c_str());
}

TEST(ChromeTraceWriter, GzipOutputReadsBackTheSame) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("rt.json.gz");
  auto sink = base::ByteSink::Create(path);
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE(WriteChromeTrace(t, {}, **sink).ok());
  EXPECT_EQ(static_cast<unsigned char>(Slurp(path)[0]), 0x1f);  // gzip magic
  auto back = import::ImportTrace(path, {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameModel(t, *back, true);
  std::remove(path.c_str());
}

TEST(RpdWriter, RoundTripKeepsEveryEvent) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("rt.rpd");
  auto counts = WriteRpd(t, path);
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->ops, 5u);
  EXPECT_EQ(counts->gpu_ranges, 3u);
  auto back = import::ImportTrace(path, {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->meta.format, "rpd");
  EXPECT_EQ(back->meta.producer, "gpuscope convert, from test (hand-built)");
  // rpd numbers API calls itself (rocpd_api.id), so correlation ids change; the links stay.
  ExpectSameModel(t, *back, /*same_correlations=*/false);
  std::remove(path.c_str());
}

TEST(RpdWriter, ViewsOfRocmProfileDataAnswer) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("views.rpd");
  ASSERT_TRUE(WriteRpd(t, path).ok());
  auto db = base::SqliteDb::OpenReadOnly(path, 2000, base::SqliteDb::Views::kAny);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'"), "2");
  // top: integer microseconds per name (9.001 us -> 9).
  EXPECT_EQ(
      db->QueryInt("SELECT TotalDuration FROM top WHERE Name = 'gemm_kernel<float, 128>'", -1), 9);
  EXPECT_EQ(db->QueryInt("SELECT TotalCalls FROM top WHERE Name = 'graph_kernel_a'", -1), 1);
  // kernel view: only the call with one kernel has launch parameters (graph kernels: none, as in
  // rpd).
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM kernel", -1), 1);
  EXPECT_EQ(db->QueryInt("SELECT gridX * 1000 + workgroupX FROM kernel", -1), 128256);
  // copy view: the memcpy call, its size, hipMemcpyKind 1 (HtoD), async.
  EXPECT_EQ(db->QueryText("SELECT apiName || ' ' || size || ' ' || kind || ' ' || sync FROM copy"),
            "cudaMemcpyAsync 1048576 1 0");
  // busy: GPU time of all ops per gpuId over the ops' wall time.
  EXPECT_EQ(db->QueryInt("SELECT SUM(GpuTime) FROM busy", -1), 9'001 + 1'500 + 1'700 + 2'500 + 700);
  // ktop: launch calls of kernels, as in rpd (the API time, not the GPU time).
  EXPECT_EQ(db->QueryInt("SELECT TotalCalls FROM ktop", -1), 1);
  std::remove(path.c_str());
}

TEST(RpdWriter, ADamagedExtensionTableIsCountedAndTheRestRead) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("damaged.rpd");
  ASSERT_TRUE(WriteRpd(t, path).ok());
  {
    // SqliteDb opens files read-only or creates them empty: damage the file through ATTACH.
    auto db = base::SqliteDb::Create(path + ".unused");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("ATTACH '" + path +
                         "' AS d; DROP TABLE d.ext_gpuscope_op; "
                         "CREATE TABLE d.ext_gpuscope_op (x integer); DETACH d;")
                    .ok());
    std::remove((path + ".unused").c_str());
  }
  auto back = import::ImportTrace(path, {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->problems.entries().at("rpd.ext_table_columns").count, 1u);
  EXPECT_EQ(back->memops.size(), t.memops.size());
  EXPECT_EQ(back->kernels.size(), t.kernels.size());
  std::remove(path.c_str());
}

TEST(RpdWriter, UnwritablePathIsOneLine) {
  model::Trace t = EveryKindOfEvent();
  // No directory can be made under a regular file (missing directories are created).
  auto dir = base::TempDir::Create("gpuscope-writer-test");
  ASSERT_TRUE(dir.ok());
  std::string blocker = dir->path() + "/a-file";
  std::ofstream(blocker) << "x";
  auto r = WriteRpd(t, blocker + "/d/x.rpd");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(blocker + "/d/x.rpd"), std::string::npos);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  // A missing parent is created.
  auto made = WriteRpd(t, dir->path() + "/new/dir/x.rpd");
  EXPECT_TRUE(made.ok()) << made.status().message();
}

TEST(EventsCsvWriter, OneRowPerEventQuotedWhereNeeded) {
  model::Trace t = EveryKindOfEvent();
  std::string path = TempPath("events.csv");
  auto sink = base::ByteSink::Create(path);
  ASSERT_TRUE(sink.ok());
  auto rows = WriteEventsCsv(t, **sink);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, t.EventCount());
  std::string text = Slurp(path);
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, *rows + 1);
  EXPECT_EQ(text.rfind("kind,name,start_ns,dur_ns,", 0), 0u);
  EXPECT_NE(text.find("instant,\"checkpoint \"\"a\"\", b\","), std::string::npos);
  EXPECT_NE(text.find("memcpy,Memcpy HtoD (Pageable -> Device),"), std::string::npos);
  EXPECT_NE(text.find(",1048576,HtoD,Pageable,Device,"), std::string::npos);
  EXPECT_NE(text.find(",\"128,2,1\",\"256,1,1\","), std::string::npos);
  std::remove(path.c_str());
}

TEST(EventsCsvWriter, ReadsBackTheSameEvents) {
  model::Trace t = EveryKindOfEvent();
  std::string dir = TempPath("csvdir");
  std::filesystem::create_directories(dir);
  auto sink = base::ByteSink::Create(dir + "/events.csv");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE(WriteEventsCsv(t, **sink).ok());
  auto back = import::ImportTrace(dir, {});  // the directory: its events.csv
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->meta.format, "gpuscope-csv");
  ExpectSameModel(t, *back, /*same_correlations=*/true, /*keeps_names=*/false);
  EXPECT_TRUE(back->problems.empty());
  std::filesystem::remove_all(dir);
}

TEST(EventsCsvImporter, BadRowsAreCountedAndSkipped) {
  std::string path = TempPath("bad_events.csv");
  {
    std::ofstream f(path);
    f << "kind,name,start_ns,dur_ns,pid,tid,device,stream,correlation,external_id,bytes,copy_kind,"
         "src_kind,dst_kind,"
         "grid,block,domain,python_id,python_parent_id,value\n"
      << "kernel,k,100,50,0,7,0,7,1,,,,,,\"1,1,1\",\"64,1,1\",,,,\n"
      << "kernel,k,abc,50,0,7,0,7,1,,,,,,,,,,,\n"
      << "teleport,x,1,1,1,1,,,,,,,,,,,,,,\n"
      << "counter,c,5,0,1,1,,,,,,,,,,,,,,\n";
  }
  auto t = import::ImportTrace(path, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kernels.size(), 1u);
  EXPECT_EQ(t->kernels.block[0][0], 64u);
  EXPECT_EQ(t->problems.entries().at("events_csv.bad_time").count, 1u);
  EXPECT_EQ(t->problems.entries().at("events_csv.unknown_kind").count, 1u);
  EXPECT_EQ(t->problems.entries().at("events_csv.bad_value").count, 1u);
  std::remove(path.c_str());
}

TEST(HtmlReport, EmbedsDataThatCannotCloseTheScript) {
  std::string page =
      RenderHtmlReport(R"({"name":"</script><script>alert(1)</script><!--<script"})", "a<b>.json");
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<!--<script"), std::string::npos);
  // Every '<' of the data as \u003c: the same string to JSON.parse.
  EXPECT_NE(page.find(R"(\u003c/script>\u003cscript>alert(1)\u003c/script>\u003c!--\u003cscript)"),
            std::string::npos);
  EXPECT_NE(page.find("<title>gpuscope report: a&lt;b&gt;.json</title>"), std::string::npos);
  for (const char* marker : {"__DATA__", "/*__CSS__*/", "/*__JS__*/", "__TITLE__"}) {
    EXPECT_EQ(page.find(marker), std::string::npos) << marker;
  }
  // Self-contained: nothing fetched from the network.
  for (const char* remote : {"http://", "https://", "src=\"//"}) {
    size_t at = page.find(remote);
    // The SVG namespace URI is a name, not a fetch.
    while (at != std::string::npos && page.compare(at, 26, "http://www.w3.org/2000/svg") == 0)
      at = page.find(remote, at + 1);
    EXPECT_EQ(at, std::string::npos) << remote;
  }
}

}  // namespace
}  // namespace round_trip_test
}  // namespace gpuscope::output
