#include "render/result_table.h"

#include <gtest/gtest.h>

#include "render/stats_tables.h"

namespace gpuscope::render {
namespace result_table_test {  // this file's helpers, apart in a unity build
namespace {

std::vector<Column> SampleColumns() {
  return {Column::Flexible("name", "Name"),
          {"total_ns", "Total ({unit})", Show::kDuration},
          {"median_ns", "Med ({unit})", Show::kDuration},
          {"share", "Share", Show::kFixed1, "", false, 2},
          {"host.pinned", "", Show::kCount},
          {"host.unknown", "", Show::kCount, "host_unknown"}};
}

ResultTable Sample() {
  ResultTable t(SampleColumns());
  t.SetTerminalOrder({1, 2, 3, 0});
  t.AddRow({Cell::Text("gemm, \"tiled\""), Cell::Int(12'000'000'000), Cell::Null(),
            Cell::Real(62.5), Cell::Uint(3), Cell::Null()});
  t.AddRow({Cell::Text("copy"), Cell::Int(1500), Cell::Int(700), Cell::Real(37.5), Cell::Null(),
            Cell::Null()});
  return t;
}

TEST(ResultTable, TextPicksOneUnitAndShowsAbsentValuesAsNa) {
  std::string text = Sample().Text(200, false);
  EXPECT_NE(text.find("Total (ms)"), std::string::npos) << text;  // 12 s -> ms for the whole column
  EXPECT_NE(text.find("12000.000"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a"), std::string::npos) << text;
  EXPECT_EQ(text.find("pinned"), std::string::npos)
      << "machine-only columns stay out of the terminal";
  EXPECT_LT(text.find("Total"), text.find("Name")) << "terminal order";
}

TEST(ResultTable, CsvQuotesTextAndLeavesAbsentValuesEmpty) {
  EXPECT_EQ(Sample().Csv(),
            "name,total_ns,median_ns,share,pinned,host_unknown\n"
            "\"gemm, \"\"tiled\"\"\",12000000000,,62.50,3,\n"
            "copy,1500,700,37.50,,\n");
  EXPECT_EQ(Sample().Csv(1),
            "name,total_ns,median_ns,share,pinned,host_unknown\n"
            "\"gemm, \"\"tiled\"\"\",12000000000,,62.50,3,\n");
}

TEST(ResultTable, RowsMadeOnDemandRenderAsHeldRowsInEveryFormat) {
  // The sample's rows made one at a time (SetRows): the same text, CSV and JSON, limits too.
  ResultTable held = Sample();
  std::vector<std::vector<Cell>> rows = {
      {Cell::Text("gemm, \"tiled\""), Cell::Int(12'000'000'000), Cell::Null(), Cell::Real(62.5),
       Cell::Uint(3), Cell::Null()},
      {Cell::Text("copy"), Cell::Int(1500), Cell::Int(700), Cell::Real(37.5), Cell::Null(),
       Cell::Null()}};
  ResultTable made(SampleColumns());
  made.SetTerminalOrder({1, 2, 3, 0});
  size_t asked = 0;
  made.SetRows(rows.size(), [&](size_t r, std::vector<Cell>& cells) {
    ++asked;
    cells = rows[r];
  });
  EXPECT_EQ(made.rows(), 2u);
  for (size_t limit : {0, 1}) {
    EXPECT_EQ(made.Text(200, false, limit), held.Text(200, false, limit)) << limit;
    EXPECT_EQ(made.Text(40, true, limit), held.Text(40, true, limit)) << limit;
    EXPECT_EQ(made.Csv(limit), held.Csv(limit)) << limit;
    output::JsonWriter a, b;
    made.Json(a, limit);
    held.Json(b, limit);
    EXPECT_EQ(a.str(), b.str()) << limit;
  }
  EXPECT_GT(asked, 0u);
}

TEST(ResultTable, JsonNestsDottedKeysAndLeavesOutAnEmptyGroup) {
  output::JsonWriter w;
  Sample().Json(w);
  std::string json = w.str();
  std::erase_if(json, [](char c) { return c == ' ' || c == '\n'; });  // the writer indents
  EXPECT_EQ(json,
            "[{\"name\":\"gemm,\\\"tiled\\\"\",\"total_ns\":12000000000,\"median_ns\":null,"
            "\"share\":62.5,"
            "\"host\":{\"pinned\":3,\"unknown\":null}},"
            "{\"name\":\"copy\",\"total_ns\":1500,\"median_ns\":700,\"share\":37.5}]");
}

TEST(StatsTables, OneRowPerStatInEveryFormat) {
  analysis::Stats st;
  analysis::KernelStat k;
  static_cast<analysis::DurationSummary&>(k) = {2, 300, 150, -1, 100, 200, 70};
  k.name = "k";
  k.percent = 100.0;
  st.kernels.push_back(k);
  analysis::MemopStat m;
  m.kind = model::MemopKind::kMemset;
  m.calls = 1;
  m.calls_unknown_bytes = 1;
  st.memops.push_back(m);
  EXPECT_EQ(KernelTable(st).Csv(),
            "name,calls,total_ns,avg_ns,median_ns,min_ns,max_ns,stddev_ns,percent\n"
            "k,2,300,150,,100,200,70,100.0000\n");
  // A memset has no host side: no host_memory object, empty CSV cells; unknown bytes are null.
  output::JsonWriter w;
  MemopTable(st).Json(w);
  EXPECT_EQ(w.str().find("host_memory"), std::string::npos) << w.str();
  EXPECT_NE(w.str().find("\"bytes\": null"), std::string::npos) << w.str();
  EXPECT_EQ(MemopTable(st).Csv(),
            "kind,calls,bytes,calls_unknown_bytes,total_ns,gbps,pageable,pinned,host_unknown\n"
            "Memset,1,,1,0,,,,\n");
}

}  // namespace
}  // namespace result_table_test
}  // namespace gpuscope::render
