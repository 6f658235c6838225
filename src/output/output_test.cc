#include <gtest/gtest.h>

#include "output/csv_writer.h"
#include "output/json_writer.h"
#include "output/text_table.h"

namespace gpuscope::output {
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

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  CsvWriter c;
  c.Row({"plain", "a,b", "say \"hi\""});
  EXPECT_EQ(c.str(), "plain,\"a,b\",\"say \"\"hi\"\"\"\n");
}

}  // namespace
}  // namespace gpuscope::output
