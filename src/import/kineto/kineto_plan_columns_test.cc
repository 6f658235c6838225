// KinetoReader::PlanColumns: columns sized once from the rate of the first events, and a read
// that plans them holds exactly what one that does not holds.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "import/common/import_test_util.h"
#include "import/kineto/kineto_reader.h"

namespace gpuscope::import::kineto {
namespace kineto_plan_columns_test {  // this file's helpers, apart in a unity build
namespace {

// 20000 kernels at a steady rate, about 3.6 MB: past the 1 MiB a plan reads before it reserves,
// and far from a power of two (a column grown by doubling ends at 32768 rows, 1.6x its size).
std::string SteadyTrace() {
  std::string json = R"({"schemaVersion":1,"traceEvents":[)";
  for (int i = 0; i < 20000; ++i) {
    if (i) json += ",\n";
    json += R"({"ph":"X","cat":"kernel","name":"kernel_)" + std::to_string(i % 13) +
            R"(","pid":0,"tid":7,"ts":)" + std::to_string(1000 + i * 10) + R"(.5,"dur":2.25,)" +
            R"("args":{"correlation":)" + std::to_string(i + 1) +
            R"(,"grid":[1,1,1],"block":[256,1,1],"stream":7,"device":0,"context":1}})";
  }
  return json + R"(],"traceName":"x"})";
}

// Reads `json` whole; `held` > 0 plans the columns for that many bytes of events.
model::Trace Read(const std::string& json, uint64_t held) {
  model::Trace trace;
  KinetoSideInfo side;
  TopLevelInfo top;
  import::testing::ChunkedSource src(json, 1 << 16);
  KinetoBuilder builder(&trace, &side);
  KinetoReader reader(&src, 0, KinetoReader::Mode::kTopLevel, &builder, &top);
  if (held > 0) reader.PlanColumns(json.size(), held);
  EXPECT_EQ(reader.Run(), KinetoReader::Outcome::kDone);
  return trace;
}

TEST(KinetoPlanColumns, ColumnsGrowOnceToTheRateAndHoldTheSameRows) {
  const std::string json = SteadyTrace();
  ASSERT_GT(json.size(), 3u << 20);
  model::Trace plain = Read(json, 0), planned = Read(json, json.size());
  ASSERT_EQ(plain.kernels.size(), 20000u);
  EXPECT_EQ(planned.kernels.start_ns, plain.kernels.start_ns);
  EXPECT_EQ(planned.kernels.dur_ns, plain.kernels.dur_ns);
  EXPECT_EQ(planned.kernels.correlation, plain.kernels.correlation);
  EXPECT_EQ(planned.kernels.name, plain.kernels.name);
  // Doubling leaves 32768 rows of room; the plan a fifth more than the rate said, never less
  // than the rows (it would have doubled).
  EXPECT_GE(plain.kernels.start_ns.capacity(), 32768u);
  EXPECT_GE(planned.kernels.start_ns.capacity(), 20000u);
  EXPECT_LT(planned.kernels.start_ns.capacity(), 20000u * 3 / 2);
}

TEST(KinetoPlanColumns, AHeadPlansForTheBytesAppendedToIt) {
  const std::string json = SteadyTrace();
  model::Trace head = Read(json, 4 * json.size());
  // Room for four times its rows: three more segments like it append without a copy.
  EXPECT_GE(head.kernels.start_ns.capacity(), 4u * 20000u);
  EXPECT_LT(head.kernels.start_ns.capacity(), 6u * 20000u);
}

TEST(KinetoPlanColumns, ATraceSmallerThanTheFirstReadPlansNothing) {
  std::string json = SteadyTrace();
  json.resize(json.find("kernel_", 900 << 10));  // cut before 1 MiB: the JSON ends early
  model::Trace trace;
  KinetoSideInfo side;
  TopLevelInfo top;
  import::testing::ChunkedSource src(json, 1 << 16);
  KinetoBuilder builder(&trace, &side);
  KinetoReader reader(&src, 0, KinetoReader::Mode::kTopLevel, &builder, &top);
  reader.PlanColumns(json.size(), 100 * json.size());
  reader.Run();
  EXPECT_GT(trace.kernels.size(), 1000u);
  EXPECT_LT(trace.kernels.start_ns.capacity(), 2 * trace.kernels.size() + 16);
}

}  // namespace
}  // namespace kineto_plan_columns_test
}  // namespace gpuscope::import::kineto
