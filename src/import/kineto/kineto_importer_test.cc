// Kineto importer tests: the format traps of the reference notes (sections 0, 1.10, 1.12), input
// split at awkward places, parallel segments, and the repository's hand-made fixtures.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/json_bytes.h"
#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/formats.h"
#include "import/kineto/kineto_reader.h"
#include "import/registry.h"
#include "model/linker.h"

namespace gpuscope::import::kineto {
namespace kineto_importer_test {  // this file's helpers, apart in a unity build
namespace {

const std::string kData = GPUSCOPE_TEST_DATA_DIR;

struct Parsed {
  model::Trace trace;
  KinetoReader::Outcome outcome;
  std::string error;
};

Parsed ParseString(const std::string& json, size_t chunk = 1 << 20,
                   size_t window = KinetoReader::kDefaultWindow) {
  Parsed p;
  KinetoSideInfo side;
  TopLevelInfo top;
  import::testing::ChunkedSource src(json, chunk);
  KinetoBuilder builder(&p.trace, &side);
  KinetoReader reader(&src, 0, KinetoReader::Mode::kTopLevel, &builder, &top,
                      std::numeric_limits<uint64_t>::max(), window);
  p.outcome = reader.Run();
  p.error = reader.error();
  FinishKinetoTrace(p.trace, side);
  model::LinkTrace(p.trace);
  return p;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

model::Trace Import(const std::string& path, int threads = 1, uint64_t parallel_min = 16 << 20) {
  ImportOptions o;
  o.threads = threads;
  o.parallel_min_bytes = parallel_min;
  auto t = ImportTrace(path, o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

std::string Ev(const std::string& body) { return "{" + body + "}"; }

TEST(KinetoReader, SplitAtEveryByteGivesTheSameModel) {
  std::string json = ReadFile(kData + "/kineto_cuda_small.json");
  Parsed whole = ParseString(json);
  ASSERT_EQ(whole.outcome, KinetoReader::Outcome::kDone) << whole.error;
  for (size_t chunk : {1, 2, 3, 7, 64, 1000}) {
    Parsed split = ParseString(json, chunk);
    ASSERT_EQ(split.outcome, KinetoReader::Outcome::kDone)
        << "chunk " << chunk << ": " << split.error;
    EXPECT_EQ(split.trace.kernels.size(), whole.trace.kernels.size());
    EXPECT_EQ(split.trace.kernels.dur_ns, whole.trace.kernels.dur_ns);
    EXPECT_EQ(split.trace.memops.bytes, whole.trace.memops.bytes);
    EXPECT_EQ(split.trace.api.size(), whole.trace.api.size());
    EXPECT_EQ(split.trace.cpu.start_ns, whole.trace.cpu.start_ns);
    EXPECT_EQ(split.trace.python.size(), whole.trace.python.size());
  }
}

// Events after `big`, each a kernel of its own correlation; the offset of the second one.
std::string EventsAfter(const std::string& big, size_t* second_offset) {
  std::string json = R"({"traceEvents":[)" + big;
  for (int i = 0; i < 50; ++i) {
    if (i == 1) *second_offset = json.size() + 1;
    json += ',';
    json +=
        Ev(R"("ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(10 + i) +
           R"(,"dur":1,"args":{"correlation":)" + std::to_string(i + 2) + "}");
  }
  return json + "]}";
}

TEST(KinetoReader, AnEventLargerThanTheWindowLosesItsWhitespaceNotItsOffsets) {
  const std::string spaces(9 << 20, ' ');  // more than the 4 MiB window, twice
  size_t second = 0;
  std::string json = EventsAfter(
      Ev(R"("ph":"X","cat":"kernel","name":"a  b",)" + spaces + R"("pid":0,"tid":7,)" + spaces +
         R"("ts":1,"dur":2,"args":{"correlation":1,"grid":[1,)" + spaces + "2,3]}"),
      &second);
  for (size_t chunk : {size_t{1} << 16, size_t{1} << 20, size_t{3} << 20}) {
    Parsed p = ParseString(json, chunk);
    ASSERT_EQ(p.outcome, KinetoReader::Outcome::kDone) << p.error;
    ASSERT_EQ(p.trace.kernels.size(), 51u);
    EXPECT_EQ(p.trace.str(p.trace.kernels.name[0]), "a  b");  // spaces in strings stay
    EXPECT_EQ(p.trace.kernels.dur_ns[0], 2000);
  }
  // The offsets after the squeezed event are the file's: a segment that starts at the second
  // small event is handed over exactly, not stepped over.
  KinetoSideInfo side;
  TopLevelInfo top;
  model::Trace t;
  import::testing::ChunkedSource src(json, 1 << 20);
  KinetoBuilder builder(&t, &side);
  KinetoReader reader(&src, 0, KinetoReader::Mode::kTopLevel, &builder, &top, second);
  EXPECT_EQ(reader.Run(), KinetoReader::Outcome::kHandoff) << reader.error();
  EXPECT_FALSE(reader.resync_failed());
  EXPECT_EQ(t.kernels.size(), 2u);
}

TEST(KinetoReader, UnreadTopLevelMembersAreSkippedWhateverTheirSize) {
  const std::string text(9 << 20, 'x');
  std::string nested = "[";
  while (nested.size() < (9u << 20)) nested += R"([1,{"s":"]}\\"}],)";
  nested += "0]";
  std::string json = R"({"junk":")" + text + R"(","nested":)" + nested + R"(,"traceEvents":[)" +
                     Ev(R"("ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2)") +
                     R"(],"tail":")" + text + R"(","n":)" + std::string(100000, '7') + "}";
  Parsed p = ParseString(json, 1 << 20);
  ASSERT_EQ(p.outcome, KinetoReader::Outcome::kDone) << p.error;
  EXPECT_EQ(p.trace.cpu.size(), 1u);
  Parsed cut = ParseString(json.substr(0, 5 << 20), 1 << 20);
  EXPECT_EQ(cut.outcome, KinetoReader::Outcome::kError);
  EXPECT_NE(cut.error.find("ends early"), std::string::npos) << cut.error;
}

// Small windows make every event an oversize item: squeezed, grown, its unread top-level
// members skipped a window at a time. The model must not change.
TEST(KinetoReader, ASmallWindowGivesTheSameModel) {
  for (const char* name :
       {"/kineto_cuda_small.json", "/kineto_rocm_small.json", "/kineto_pt18_legacy.json"}) {
    std::string json = ReadFile(kData + name);
    std::string spaced;  // and with whitespace between every token outside strings
    base::JsonStringTracker strings;
    for (char ch : json) {
      spaced += ch;
      if (!strings.Step(ch) && ch != 0 && std::strchr("{}[],:", ch) != nullptr) spaced += " \n\t ";
    }
    Parsed whole = ParseString(json);
    ASSERT_EQ(whole.outcome, KinetoReader::Outcome::kDone) << whole.error;
    for (size_t window : {64, 256, 1000}) {
      for (const std::string* input : {&json, &spaced}) {
        Parsed small = ParseString(*input, 7, window);
        ASSERT_EQ(small.outcome, KinetoReader::Outcome::kDone)
            << name << " window " << window << ": " << small.error;
        EXPECT_EQ(small.trace.kernels.size(), whole.trace.kernels.size()) << name;
        EXPECT_EQ(small.trace.kernels.dur_ns, whole.trace.kernels.dur_ns) << name;
        EXPECT_EQ(small.trace.memops.bytes, whole.trace.memops.bytes) << name;
        EXPECT_EQ(small.trace.api.size(), whole.trace.api.size()) << name;
        EXPECT_EQ(small.trace.cpu.start_ns, whole.trace.cpu.start_ns) << name;
        EXPECT_EQ(small.trace.python.size(), whole.trace.python.size()) << name;
        EXPECT_EQ(small.trace.devices.size(), whole.trace.devices.size()) << name;
      }
    }
  }
}

TEST(KinetoReader, HandMadeFixtureHasExactlyWhatWasWritten) {
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  // Per step: 1 gemm + 3 graph kernels; two steps.
  EXPECT_EQ(t.kernels.size(), 8u);
  EXPECT_EQ(t.memops.size(), 6u);
  // Per step: launch, graph launch, 2 memcpy, sync, memset = 6; plus INVALID.
  EXPECT_EQ(t.api.size(), 13u);
  EXPECT_EQ(t.python.size(), 4u);
  ASSERT_EQ(t.iterations.size(), 2u);
  EXPECT_EQ(t.iterations[0].number, 1);
  EXPECT_EQ(t.iterations[1].start_ns, 2'000'000);
  EXPECT_EQ(t.meta.base_time_ns, 1700000000000000000);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100");
  EXPECT_EQ(t.devices[0].vendor, model::Vendor::kNvidia);
  // Every kernel finds its launch (graph launch fan-out included).
  for (auto l : t.kernels.launch) EXPECT_NE(l, model::kNoRow);
}

TEST(KinetoTraps, ExternalIdEqualToCorrelationDoesNotMislink) {
  // 2021-2024 Kineto: runtime "External id" = its own correlation. The op link must come from
  // time containment: the launch sits inside aten::addmm.
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.str(t.api.name[i]) != "cudaLaunchKernel") continue;
    ASSERT_NE(t.api.enclosing_op[i], model::kNoRow);
    EXPECT_EQ(t.str(t.cpu.name[t.api.enclosing_op[i]]), "aten::addmm");
  }
}

TEST(KinetoTraps, DuplicateMetadataMakesOneThread) {
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  int threads = 0;
  for (const auto& tr : t.tracks) {
    if (tr.kind == model::TrackKind::kCpuThread && tr.pid == 4242) {
      ++threads;
      EXPECT_EQ(t.str(tr.name), "thread 4242 (python)");
    }
  }
  EXPECT_EQ(threads, 1);
  EXPECT_EQ(t.record_counts.at("duplicate metadata records (first kept)"), 1u);
}

TEST(KinetoTraps, DanglingFlowsAreCountedNotFatal) {
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  EXPECT_EQ(t.record_counts.at("flow starts"), 2u);
  EXPECT_EQ(t.record_counts.at("flow ends"), 3u);
  EXPECT_EQ(t.record_counts.at("flow ends without a start (normal in Kineto)"), 1u);
}

TEST(KinetoTraps, ClampedZeroTimestampsAreCountedAndLeftOutOfTheSpan) {
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  EXPECT_EQ(t.meta.clamped_zero_events, 1u);
  EXPECT_EQ(t.problems.entries().at("kineto.ts_clamped_to_zero").count, 1u);
  EXPECT_EQ(t.TimeSpan().first, 1'000'000);  // the first step, not the clamped event at 0
}

TEST(KinetoTraps, Uint64ArgsEscapedNamesAndInvalidRuntimeNames) {
  model::Trace t = Import(kData + "/kineto_cuda_small.json");
  bool saw_escaped = false, saw_comms = false, saw_invalid = false;
  for (auto n : t.cpu.name) {
    saw_escaped |= t.str(n) == "triton_\"poi\"_fused_\xC3\xA9";
    saw_comms |= t.str(n) == "record_param_comms";
  }
  for (auto n : t.api.name) saw_invalid |= t.str(n) == "INVALID";
  EXPECT_TRUE(saw_escaped);
  EXPECT_TRUE(saw_comms);
  EXPECT_TRUE(saw_invalid);
  EXPECT_TRUE(t.problems.entries().count("kineto.bad_arg_value") == 0);
}

TEST(KinetoTraps, StringPidsAndTids) {
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"cpu_op","name":"a","pid":"123","tid":"4093687616","ts":1,"dur":2)") +
      "," + Ev(R"("ph":"X","cat":"cpu_op","name":"b","pid":123,"tid":4093687616,"ts":5,"dur":2)") +
      "," +
      Ev(R"("ph":"X","cat":"Trace","name":"span","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":9)") +
      "," + Ev(R"("ph":"i","s":"g","name":"Record Window End","pid":"","tid":"","ts":10)") + "]}");
  ASSERT_EQ(p.outcome, KinetoReader::Outcome::kDone) << p.error;
  ASSERT_EQ(p.trace.cpu.size(), 2u);
  EXPECT_EQ(p.trace.cpu.track[0], p.trace.cpu.track[1]);  // "123" and 123 are one process
  EXPECT_EQ(p.trace.tracks[p.trace.cpu.track[0]].tid, 4093687616);
  EXPECT_EQ(p.trace.instants.size(), 1u);
}

TEST(KinetoTraps, LegacyBareArrayWithCapitalisedCategories) {
  model::Trace t = Import(kData + "/kineto_pt18_legacy.json");
  EXPECT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.memops.size(), 1u);
  EXPECT_EQ(t.api.size(), 2u);
  ASSERT_EQ(t.iterations.size(), 1u);
  EXPECT_EQ(t.iterations[0].number, 3);
  // Integer microseconds since the epoch, kept exact in ns.
  EXPECT_EQ(t.kernels.start_ns[0], 1606910596297040000LL);
  EXPECT_EQ(t.kernels.dur_ns[0], 30000);
  EXPECT_NE(t.meta.format_version.find("bare event array"), std::string::npos);
  EXPECT_NE(t.meta.format_version.find("legacy categories"), std::string::npos);
  EXPECT_EQ(t.memops.src[0], model::MemoryKind::kPageable);
  EXPECT_EQ(t.str(t.cpu.name[t.api.enclosing_op[0]]), "aten::conv2d");
}

TEST(KinetoTraps, RocmNamesHexAndStringNumbers) {
  model::Trace t = Import(kData + "/kineto_rocm_small.json");
  EXPECT_TRUE(t.problems.empty()) << t.problems.entries().begin()->first;
  ASSERT_EQ(t.memops.size(), 1u);
  EXPECT_EQ(t.memops.kind[0], model::MemopKind::kHtoD);
  EXPECT_EQ(t.memops.src[0], model::MemoryKind::kHost);  // ROCm never says pinned or pageable
  EXPECT_EQ(t.memops.bytes[0], 2560);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels.flags[1], model::kKernelIsCopy);
  EXPECT_EQ(t.devices[0].vendor, model::Vendor::kAmd);
  EXPECT_EQ(t.str(t.api.name[t.kernels.launch[0]]), "hipLaunchKernel");
}

TEST(KinetoTraps, ExactNanosecondsFromThreeDecimals) {
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3743411222578.748,"dur":0.001)") +
      "]}");
  ASSERT_EQ(p.trace.kernels.size(), 1u);
  EXPECT_EQ(p.trace.kernels.start_ns[0], 3743411222578748LL);
  EXPECT_EQ(p.trace.kernels.dur_ns[0], 1);
}

TEST(KinetoTraps, KeyOrderDoesNotMatterAndBaseTimeMayFollowEvents) {
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("args":{"correlation":3},"dur":2,"ts":1,"tid":7,"pid":0,"name":"k","cat":"kernel","ph":"X")") +
      R"(],"baseTimeNanoseconds":1700000000000000000})");
  ASSERT_EQ(p.outcome, KinetoReader::Outcome::kDone) << p.error;
  ASSERT_EQ(p.trace.kernels.size(), 1u);
  EXPECT_EQ(p.trace.kernels.correlation[0], 3u);
}

TEST(KinetoTraps, Uint64CorrelationAboveInt64Max) {
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":18446744073709551615})") +
      "," +
      Ev(R"("ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":2,"args":{"correlation":18446744073709551615,"Comms Id":10159970886766084423})") +
      "]}");
  ASSERT_EQ(p.trace.kernels.size(), 1u);
  EXPECT_EQ(p.trace.kernels.correlation[0], UINT64_MAX);
  EXPECT_EQ(p.trace.kernels.launch[0], 0u);
}

TEST(KinetoTraps, TrailingCommaBomAndUnknownTopLevelKeys) {
  Parsed p = ParseString(
      "\xEF\xBB\xBF"
      R"({"WARNING":["x", {"nested": [1,2]}],"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2)") +
      R"(,],"distributedInfo":{"rank":3},"traceName":"t"})");
  ASSERT_EQ(p.outcome, KinetoReader::Outcome::kDone) << p.error;
  EXPECT_EQ(p.trace.cpu.size(), 1u);
}

TEST(KinetoTraps, OverlappingPythonFramesDoNotBreakLinks) {
  // A python_function that "bleeds" past its parent (TraceLens' event-bleed case).
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"python_function","name":"a.py(1): f","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Python id":1,"Python parent id":null})") +
      "," +
      Ev(R"("ph":"X","cat":"python_function","name":"a.py(2): g","pid":1,"tid":1,"ts":5,"dur":10,"args":{"Python id":2,"Python parent id":1})") +
      "," + Ev(R"("ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":6,"dur":1)") +
      "]}");
  ASSERT_EQ(p.trace.cpu.size(), 1u);
  EXPECT_EQ(p.trace.str(p.trace.python.name[p.trace.cpu.python_frame[0]]), "a.py(2): g");
  EXPECT_EQ(p.trace.python.parent[1], 0u);  // by Python parent id
}

TEST(KinetoTraps, GpuUserAnnotationsAndSyncEvents) {
  Parsed p = ParseString(
      R"({"traceEvents":[)" +
      Ev(R"("ph":"X","cat":"gpu_user_annotation","name":"my_range","pid":0,"tid":7,"ts":0,"dur":10,"args":{"External id":5})") +
      "," +
      Ev(R"("ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":20,"dur":3,"args":{"cuda_sync_kind":"Stream Sync","stream":7,"correlation":9})") +
      "," +
      Ev(R"("ph":"C","name":"GPU 0 Counters","pid":0,"tid":0,"ts":5,"args":{"sm_util":41.5,"label":"x"})") +
      "," +
      Ev(R"("ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":24,"ts":30,"dur":2,"args":{"cuda_sync_kind":"Stream Wait Event","wait_on_stream":20,"wait_on_cuda_event_record_corr_id":1385,"stream":24,"correlation":1389})") +
      "]}");
  ASSERT_EQ(p.trace.gpu_ranges.size(), 3u);
  EXPECT_EQ(p.trace.gpu_ranges.kind[0], model::GpuRangeKind::kAnnotation);
  EXPECT_EQ(p.trace.gpu_ranges.kind[1], model::GpuRangeKind::kSync);
  // A stream sync waits on no event; a stream's event wait names the record call and stream.
  EXPECT_EQ(p.trace.gpu_ranges.waits_on_record[1], model::kNoCorrelation);
  EXPECT_EQ(p.trace.gpu_ranges.waits_on_record[2], 1385u);
  EXPECT_EQ(p.trace.gpu_ranges.waits_on_stream[2], 20);
  ASSERT_EQ(p.trace.counters.size(), 1u);
  EXPECT_EQ(p.trace.counters.value[0], 41.5);
}

TEST(KinetoParallel, SegmentsGiveTheSequentialResult) {
  // Names that contain "}, {" make some segment guesses land inside strings: the reader must
  // refute them and still produce exactly the sequential result.
  std::string json = R"({"schemaVersion":1,"traceEvents":[)";
  for (int i = 0; i < 3000; ++i) {
    if (i) json += ",\n";
    std::string name =
        i % 7 == 0 ? "weird }, {\\\"name\\\": } , { kernel" : "kernel_" + std::to_string(i % 13);
    json += Ev(R"("ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
               std::to_string(i * 10) + R"(.5,"dur":)" + std::to_string(1 + i % 5) +
               R"(.25,"args":{"correlation":)" + std::to_string(i + 1) + "}");
  }
  json += R"(],"traceName":"x"})";
  std::string path = import::testing::TempDir() + "/parallel.json";
  std::ofstream(path) << json;
  model::Trace one = Import(path, 1);
  for (int threads : {2, 3, 5, 8}) {
    model::Trace many = Import(path, threads, 0);
    EXPECT_EQ(many.kernels.size(), 3000u);
    EXPECT_EQ(many.kernels.start_ns, one.kernels.start_ns);
    EXPECT_EQ(many.kernels.dur_ns, one.kernels.dur_ns);
    EXPECT_EQ(many.kernels.correlation, one.kernels.correlation);
    for (size_t k = 0; k < one.kernels.size(); ++k)
      EXPECT_EQ(many.str(many.kernels.name[k]), one.str(one.kernels.name[k])) << k;
  }
}

TEST(KinetoParallel, TruncatedFileInParallelKeepsTheSameEvents) {
  std::string json = ReadFile(kData + "/kineto_cuda_small.json");
  std::string cut = json.substr(0, json.size() * 2 / 3);
  std::string path = import::testing::TempDir() + "/cut.json";
  std::ofstream(path) << cut;
  model::Trace one = Import(path, 1);
  model::Trace many = Import(path, 4, 0);
  EXPECT_FALSE(one.meta.import_error.empty());
  EXPECT_EQ(many.meta.import_error, one.meta.import_error);
  EXPECT_EQ(many.EventCount(), one.EventCount());
}

// The names of a table's rows, as text (ids differ between two reads' pools).
template <typename Table>
std::vector<std::string> Names(const model::Trace& t, const Table& table) {
  std::vector<std::string> names;
  for (base::StringId id : table.name) names.emplace_back(t.str(id));
  return names;
}

// A plain file is parsed in place, mapped; a window size (tests, the fuzz target) reads it
// through the window instead. Both give the same model, whole, in segments and cut short.
TEST(KinetoParallel, TheMappedFileAndTheWindowGiveTheSameModel) {
  for (const char* name : {"/kineto_cuda_small.json", "/kineto_rocm_small.json",
                           "/kineto_pt18_legacy.json", "/kineto_cuda_small.json:cut"}) {
    std::string file = name;
    const bool cut = file.ends_with(":cut");
    std::string json = ReadFile(kData + file.substr(0, file.find(':')));
    if (cut) json.resize(json.size() * 2 / 3);
    std::string path = import::testing::TempDir() + "/mapped.json";
    std::ofstream(path, std::ios::binary) << json;
    for (int threads : {1, 3}) {
      ImportOptions o;
      o.threads = threads;
      o.parallel_min_bytes = 0;
      ImportOptions w = o;
      w.json_window_bytes = 1000;
      // How each read went, from its laps; then the finished (linked) models.
      auto read = [&](const ImportOptions& options) {
        auto r = kineto::ReadKineto(path, options);
        EXPECT_TRUE(r.ok()) << name;
        std::string laps;
        if (r.ok())
          for (const auto& [what, seconds] : r->laps) laps += what + "; ";
        return laps;
      };
      EXPECT_NE(read(o).find("mapped)"), std::string::npos) << name;
      EXPECT_NE(read(w).find("through a window)"), std::string::npos) << name;
      auto mapped = ImportTrace(path, o);
      auto windowed = ImportTrace(path, w);
      ASSERT_TRUE(mapped.ok() && windowed.ok()) << name;
      const model::Trace &m = *mapped, &v = *windowed;
      EXPECT_EQ(m.meta.import_error, v.meta.import_error) << name;
      EXPECT_EQ(cut, !m.meta.import_error.empty()) << name;
      EXPECT_EQ(m.EventCount(), v.EventCount()) << name;
      EXPECT_EQ(m.strings.size(), v.strings.size()) << name;
      EXPECT_EQ(m.kernels.start_ns, v.kernels.start_ns) << name;
      EXPECT_EQ(m.kernels.correlation, v.kernels.correlation) << name;
      EXPECT_EQ(Names(m, m.kernels), Names(v, v.kernels)) << name;
      EXPECT_EQ(m.memops.bytes, v.memops.bytes) << name;
      EXPECT_EQ(m.api.start_ns, v.api.start_ns) << name;
      EXPECT_EQ(m.api.enclosing_op, v.api.enclosing_op) << name;
      EXPECT_EQ(Names(m, m.api), Names(v, v.api)) << name;
      EXPECT_EQ(m.cpu.dur_ns, v.cpu.dur_ns) << name;
      EXPECT_EQ(m.cpu.parent, v.cpu.parent) << name;
      EXPECT_EQ(Names(m, m.cpu), Names(v, v.cpu)) << name;
      EXPECT_EQ(m.python.start_ns, v.python.start_ns) << name;
      EXPECT_EQ(m.python.parent, v.python.parent) << name;
      EXPECT_EQ(Names(m, m.python), Names(v, v.python)) << name;
      EXPECT_EQ(m.devices.size(), v.devices.size()) << name;
      EXPECT_EQ(m.meta.producer, v.meta.producer) << name;
      EXPECT_EQ(m.meta.format_version, v.meta.format_version) << name;
    }
  }
}

TEST(KinetoBadInput, EachCaseIsOneClearError) {
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case& c : {Case{"bad_empty_file.json", "the file is empty"},
                        Case{"bad_not_json.json", "not a trace gpuscope can read"},
                        Case{"bad_unknown_format.json", "unknown format"},
                        Case{"bad_empty_trace.json", "holds no events"},
                        Case{"bad_metadata_only.json", "holds no events"},
                        Case{"does_not_exist.json", "no such file"}}) {
    auto t = ImportTrace(kData + "/" + c.file, {});
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_NE(t.status().message().find(c.says), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find(c.file), std::string::npos) << t.status().message();
    EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
  }
  auto dir = ImportTrace(kData, {});
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("directory"), std::string::npos);
}

TEST(KinetoBadInput, BrokenFilesKeepWhatWasReadAndSayWhere) {
  model::Trace cut = Import(kData + "/bad_truncated.json");
  EXPECT_NE(cut.meta.import_error.find("ends early"), std::string::npos);
  EXPECT_NE(cut.meta.import_error.find("traceEvents"), std::string::npos);
  EXPECT_GT(cut.EventCount(), 0u);
  model::Trace gz = Import(kData + "/bad_truncated.json.gz");
  EXPECT_NE(gz.meta.import_error.find("gzip"), std::string::npos);
  EXPECT_GT(gz.EventCount(), 0u);
  model::Trace corrupt = Import(kData + "/bad_corrupt.json.gz");
  EXPECT_FALSE(corrupt.meta.import_error.empty());
}

TEST(KinetoBadInput, EventsMissingFieldsAreCountedAndTheRestKept) {
  model::Trace t = Import(kData + "/bad_missing_fields.json");
  const auto& p = t.problems.entries();
  EXPECT_EQ(p.at("kineto.event_missing_ts").count, 1u);
  EXPECT_EQ(p.at("kineto.event_missing_dur").count, 1u);
  EXPECT_EQ(p.at("kineto.bad_ts").count, 1u);
  EXPECT_EQ(p.at("kineto.unsupported_phase").count, 1u);
  EXPECT_EQ(t.kernels.size(), 2u);  // "no_dur" (kept with 0) and "good"
  EXPECT_NE(p.at("kineto.event_missing_ts").first_example.find("byte"), std::string::npos);
}

TEST(KinetoBadInput, GzipAndPlainAreTheSame) {
  model::Trace a = Import(kData + "/kineto_cuda_small.json");
  model::Trace b = Import(kData + "/kineto_cuda_small.json.gz");
  EXPECT_EQ(a.kernels.start_ns, b.kernels.start_ns);
  EXPECT_EQ(a.EventCount(), b.EventCount());
}

}  // namespace
}  // namespace kineto_importer_test
}  // namespace gpuscope::import::kineto
