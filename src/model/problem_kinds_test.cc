// The declared problem kinds: one entry per enumerator in order, unique names spelled
// family.what (the names are a contract: `info`, the JSON and scripts key on them).

#include "model/problem_kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/problems.h"

namespace gpuscope::model {
namespace problem_kinds_test {  // this file's helpers, apart in a unity build
namespace {

TEST(ProblemKinds, EachEnumeratorHasItsEntryAndAUniqueWellFormedName) {
  std::set<std::string_view> names;
  size_t i = 0;
  for (const ProblemKindInfo& k : kProblemKinds) {
    EXPECT_EQ(static_cast<size_t>(k.kind), i++) << k.name;
    EXPECT_TRUE(names.insert(k.name).second) << "twice: " << k.name;
    size_t dot = k.name.find('.');
    ASSERT_NE(dot, std::string_view::npos) << k.name;
    EXPECT_EQ(k.name.find('.', dot + 1), std::string_view::npos) << k.name;
    for (char c : k.name)
      EXPECT_TRUE(c == '.' || c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
          << k.name;
    EXPECT_FALSE(k.what.empty()) << k.name;
  }
}

TEST(ProblemKinds, TheLogCountsUnderTheDeclaredNameAndMergesByIt) {
  ProblemLog a, b;
  a.Add(ProblemKind::kKinetoBadTs, "event at byte 16", 2);
  b.Add(ProblemKind::kKinetoBadTs, "event at byte 99");
  b.Add(ProblemKind::kCsvNulByte, "line 3");
  a.Merge(b);
  EXPECT_EQ(a.Count(ProblemKind::kKinetoBadTs), 3u);
  EXPECT_EQ(a.Count(ProblemKind::kCsvNulByte), 1u);
  EXPECT_EQ(a.Count(ProblemKind::kCsvFieldCount), 0u);
  EXPECT_EQ(a.entries().at("kineto.bad_ts").first_example, "event at byte 16");
  EXPECT_EQ(a.total(), 4u);
}

}  // namespace
}  // namespace problem_kinds_test
}  // namespace gpuscope::model
