#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "output/csv_writer.h"
#include "output/json_writer.h"
#include "output/text_table.h"

namespace gpuscope::output {
namespace output_test {  // this file's helpers, apart in a unity build
namespace {

TEST(TextTable, AlignsAndFitsTheFlexibleColumn) {
  TextTable t;
  t.AddColumn("Calls", TextTable::Align::kRight);
  t.AddColumn("Name", TextTable::Align::kLeft, true);
  t.AddRow({"1", "short"});
  t.AddRow({"12345", std::string(200, 'x')});
  std::string fitted = t.Render(60, true);
  for (size_t start = 0, end; (end = fitted.find('\n', start)) != std::string::npos;
       start = end + 1) {
    EXPECT_LE(fitted.substr(start, end - start).size(), 62u);  // the ellipsis is 3 bytes, 1 column
  }
  EXPECT_NE(fitted.find("    1  short"), std::string::npos);
  std::string whole = t.Render(60, false);
  EXPECT_NE(whole.find(std::string(200, 'x')), std::string::npos);
}

TEST(JsonWriter, EscapesAndNests) {
  JsonWriter w(false);
  w.BeginObject()
      .Key("a\"b")
      .String("x\ny\x01")
      .Key("n")
      .Int(-3)
      .Key("l")
      .BeginArray()
      .Uint(UINT64_MAX)
      .Null()
      .EndArray()
      .EndObject();
  EXPECT_EQ(w.str(), R"({"a\"b":"x\ny\u0001","n":-3,"l":[18446744073709551615,null]})");
}

// What a writer streamed to `f`, then `rest` (what it still held), read back; closes `f`.
std::string Finish(std::FILE* f, const std::string& rest) {
  std::fwrite(rest.data(), 1, rest.size(), f);
  std::rewind(f);
  std::string back;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) back.append(buf, n);
  std::fclose(f);
  return back;
}

// A document streamed to a file is the document held whole, byte for byte, and what stays held
// at a time is bounded (flushed at 1 MiB).
TEST(JsonWriter, StreamsTheSameDocumentInBoundedPieces) {
  auto write = [](JsonWriter& w, size_t* most) {
    w.BeginObject().Key("rows").BeginArray();
    for (int i = 0; i < 60'000; ++i) {
      w.BeginObject().Key("name").String("kernel_" + std::to_string(i)).Key("ns").Int(i * 7);
      w.EndObject();
      if (most) *most = std::max(*most, w.str().size());
    }
    w.EndArray().Key("total").Int(42).EndObject();
  };
  JsonWriter whole;
  write(whole, nullptr);
  ASSERT_GT(whole.str().size(), 3u << 20);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  JsonWriter streamed;
  streamed.StreamTo(f);
  size_t most = 0;
  write(streamed, &most);
  EXPECT_LE(most, (1u << 20) + 256);
  EXPECT_EQ(Finish(f, streamed.str()), whole.str());
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  CsvWriter c;
  c.Row({"plain", "a,b", "say \"hi\""});
  EXPECT_EQ(c.str(), "plain,\"a,b\",\"say \"\"hi\"\"\"\n");
}

TEST(CsvWriter, StreamedRowsEqualTheHeldTableAndNeverHoldMoreThanAMebibyte) {
  CsvWriter whole, streamed;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  streamed.StreamTo(f);
  size_t most = 0;
  for (int i = 0; i < 100'000; ++i) {
    const std::vector<std::string> row = {"kernel_" + std::to_string(i), "a,b", std::to_string(i)};
    whole.Row(row);
    streamed.Row(row);
    most = std::max(most, streamed.str().size());
  }
  EXPECT_LT(most, (1u << 20) + 64);
  EXPECT_LT(streamed.str().size(), whole.str().size());
  EXPECT_EQ(Finish(f, streamed.str()), whole.str());
}

}  // namespace
}  // namespace output_test
}  // namespace gpuscope::output
