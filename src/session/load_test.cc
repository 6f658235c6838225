#include "session/load.h"

#include <gtest/gtest.h>

#include "base/text.h"

namespace gpuscope::session {
namespace load_test {  // this file's helpers, apart in a unity build
namespace {

TEST(PartialReadWarning, NamesThePathOnceOnOneLine) {
  EXPECT_EQ(PartialReadWarning("t.rpd", "t.rpd: database disk image is malformed\n(step 3)", 1234),
            "gpuscope: warning: t.rpd: database disk image is malformed (step 3); kept the 1,234 "
            "events read before it");
  EXPECT_EQ(PartialReadWarning("t.json", "the JSON ends early at byte 10", 2),
            "gpuscope: warning: t.json: the JSON ends early at byte 10; kept the 2 events read "
            "before it");
}

TEST(OneLine, FoldsBreaksAndCutsTheMiddle) {
  EXPECT_EQ(base::OneLine("a\n  b\tc \r\n"), "a b c");
  std::string sql = "malformed schema: CREATE TABLE " + std::string(1000, 'x') + " END";
  std::string one = base::OneLine(sql, 60);
  EXPECT_EQ(one.size(), 60u - 1);  // 28 + "..." + 28
  EXPECT_TRUE(one.starts_with("malformed schema")) << one;
  EXPECT_TRUE(one.ends_with(" END")) << one;
  EXPECT_NE(one.find("..."), std::string::npos);
}

}  // namespace
}  // namespace load_test
}  // namespace gpuscope::session
