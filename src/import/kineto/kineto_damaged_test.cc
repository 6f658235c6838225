// Damaged events in a Kineto file: an element of "traceEvents" that is not valid JSON costs
// that event only (counted as kineto.invalid_event), wherever the read windows and the parallel
// segments cut the file; a file that ends while the reader looks for the next event is the
// one error, and the events before it stay.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "import/common/import_test_util.h"
#include "import/common/sqlite_test_util.h"
#include "import/kineto/kineto_reader.h"
#include "import/registry.h"

namespace gpuscope::import::kineto {
namespace kineto_damaged_test {  // this file's helpers, apart in a unity build
namespace {

struct Read {
  model::Trace trace;
  TopLevelInfo top;
  KinetoReader::Outcome outcome;
  std::string error;
};

Read ReadString(const std::string& json, size_t chunk, size_t window) {
  Read r;
  KinetoSideInfo side;
  import::testing::ChunkedSource src(json, chunk);
  KinetoBuilder builder(&r.trace, &side);
  KinetoReader reader(&src, 0, KinetoReader::Mode::kTopLevel, &builder, &r.top,
                      std::numeric_limits<uint64_t>::max(), window);
  r.outcome = reader.Run();
  r.error = reader.error();
  return r;
}

// A kernel event, pretty-printed as Kineto writes it.
std::string Kernel(int i) {
  return "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,\n"
         "    \"ts\": " +
         std::to_string(100 + 10 * i) +
         ", \"dur\": 5,\n    \"args\": {\n      \"correlation\": " + std::to_string(i + 1) +
         "\n    }\n  }";
}

// The damage PyTorch writes: a Python frame's name whose quotes are not escaped.
const char* const kUnescapedName =
    "  {\n    \"ph\": \"X\", \"cat\": \"python_function\",\n"
    "    \"name\": \"tinynet.py(0):     \"\"\"\", \"pid\": 1, \"tid\": 1,\n"
    "    \"ts\": 50, \"dur\": 3,\n    \"args\": {\n      \"Python id\": 9\n    }\n  }";

// `n` kernels with `damaged` inserted before kernel k of each k in `at`, then `tail`.
std::string Trace(int n, const std::vector<int>& at, const std::string& damaged,
                  const std::string& tail = "\n  ],\n  \"baseTimeNanoseconds\": 1000\n}\n") {
  std::string json = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  bool first = true;
  for (int i = 0; i < n; ++i) {
    for (int a : at) {
      if (a != i) continue;
      json += first ? "" : ",\n";
      json += damaged;
      first = false;
    }
    json += first ? "" : ",\n";
    json += Kernel(i);
    first = false;
  }
  json += tail;
  return json;
}

uint64_t Invalid(const model::Trace& t) {
  auto it = t.problems.entries().find("kineto.invalid_event");
  return it == t.problems.entries().end() ? 0 : it->second.count;
}

TEST(KinetoDamaged, AnUnescapedNameCostsItsEventOnlyAtEveryCut) {
  const std::string json = Trace(60, {0, 17, 59}, kUnescapedName);
  for (size_t chunk : {1, 3, 64, 1 << 20}) {
    for (size_t window : {512, 4096, 256 << 10}) {
      Read r = ReadString(json, chunk, window);
      ASSERT_EQ(r.outcome, KinetoReader::Outcome::kDone) << chunk << " " << window << r.error;
      EXPECT_EQ(r.trace.kernels.size(), 60u) << chunk << " " << window;
      EXPECT_EQ(Invalid(r.trace), 3u) << chunk << " " << window;
      EXPECT_TRUE(r.top.has_base_time);  // the keys after the events are read too
    }
  }
  Read r = ReadString(json, 1 << 20, 256 << 10);
  const std::string& first = r.trace.problems.entries().at("kineto.invalid_event").first_example;
  const size_t at = json.find("{\n    \"ph\": \"X\", \"cat\": \"python_function\"");
  EXPECT_NE(first.find("event at byte " + std::to_string(at) + ":"), std::string::npos) << first;
  EXPECT_NE(first.find("expected ','"), std::string::npos) << first;
}

TEST(KinetoDamaged, TheLastEventDamagedStillEndsTheArray) {
  std::string json = Trace(5, {}, "");
  const std::string tail = "\n  ],\n  \"baseTimeNanoseconds\": 1000\n}\n";
  std::string damaged = ",\n";
  damaged += kUnescapedName;
  json.insert(json.size() - tail.size(), damaged);
  Read r = ReadString(json, 1 << 20, 256 << 10);
  ASSERT_EQ(r.outcome, KinetoReader::Outcome::kDone) << r.error;
  EXPECT_EQ(r.trace.kernels.size(), 5u);
  EXPECT_EQ(Invalid(r.trace), 1u);
  EXPECT_TRUE(r.top.has_base_time);
}

TEST(KinetoDamaged, AMissingCommaOrAStrayValueCostsOneEvent) {
  std::string json = Trace(10, {}, "");
  // "}\n{" with no comma before kernel 4: kernel 4 is skipped with the damage, 3 and 5 stay.
  const size_t k4 = json.find(Kernel(4));
  ASSERT_EQ(json.substr(k4 - 2, 2), ",\n");
  json.erase(k4 - 2, 1);
  // A number where an event belongs.
  json.insert(json.find(Kernel(7)), "12,\n");
  Read r = ReadString(json, 7, 512);
  ASSERT_EQ(r.outcome, KinetoReader::Outcome::kDone) << r.error;
  EXPECT_EQ(r.trace.kernels.size(), 8u);  // 4 and 7 went with the damage
  EXPECT_EQ(Invalid(r.trace), 2u);
}

TEST(KinetoDamaged, ALostCommaBetweenNumbersIsDamageInEveryWindow) {
  // "block": [256, 10\n1] in "args" (found by fuzz_kineto). An event longer than the window is
  // squeezed as it is read; when a refill ends just after the whitespace, the squeeze must not
  // join the two numbers into a valid "101". Where refills end depends on the window and on how
  // much each read returns, so many of both are tried.
  for (const char* gap : {"\n", " "}) {
    std::string json = Trace(6, {}, "");
    const std::string k3 = Kernel(3);
    std::string damaged = k3;
    damaged.insert(
        damaged.find("\"correlation\""),
        "\"grid\": [\n64,\n1,\n1\n],\n\"block\": [\n256,\n10" + std::string(gap) + "1\n],\n");
    json.replace(json.find(k3), k3.size(), damaged);
    for (size_t chunk : {1, 2, 3, 5, 7, 1 << 20}) {
      for (size_t window = 64; window <= 640; window += 4) {
        Read r = ReadString(json, chunk, window);
        ASSERT_EQ(r.outcome, KinetoReader::Outcome::kDone) << window << r.error;
        EXPECT_EQ(r.trace.kernels.size(), 5u) << chunk << " " << window;
        EXPECT_EQ(Invalid(r.trace), 1u) << chunk << " " << window;
      }
    }
  }
}

TEST(KinetoDamaged, NoEventAfterTheDamageIsTheOneErrorAndNeverAHang) {
  for (const std::string& rest :
       {std::string("{\"ph\": \"X\", \"name\": \"a\"\"b\"}}}} ,, ]"), std::string("{\"ph\": }"),
        std::string(5000, '}'), std::string("{\"ph\": \"X\"") + std::string(3000, ' ')}) {
    std::string json = Trace(3, {}, "", ",\n" + rest);
    for (size_t window : {512, 256 << 10}) {
      Read r = ReadString(json, 5, window);
      EXPECT_EQ(r.outcome, KinetoReader::Outcome::kError) << rest.substr(0, 40);
      EXPECT_EQ(r.trace.kernels.size(), 3u);
      EXPECT_FALSE(r.error.empty());
    }
  }
  Read r = ReadString(Trace(3, {}, "", ",\n{\"ph\": }"), 1 << 20, 256 << 10);
  EXPECT_NE(r.error.find("no event after it could be read"), std::string::npos) << r.error;
}

TEST(KinetoDamaged, ParallelSegmentsCountTheSameDamage) {
  std::vector<int> at;
  for (int i = 0; i < 3000; i += 97) at.push_back(i);
  const std::string path = import::testing::TempDir() + "/damaged.json";
  std::ofstream(path) << Trace(3000, at, kUnescapedName);
  for (int threads : {1, 2, 4}) {
    ImportOptions o;
    o.threads = threads;
    o.parallel_min_bytes = 0;
    auto t = ImportTrace(path, o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_TRUE(t->meta.import_error.empty()) << t->meta.import_error;
    EXPECT_EQ(t->kernels.size(), 3000u) << threads;
    EXPECT_EQ(Invalid(*t), at.size()) << threads;
  }
}

}  // namespace
}  // namespace kineto_damaged_test
}  // namespace gpuscope::import::kineto
