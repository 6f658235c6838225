#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuscope::base {
namespace {

TEST(StringPool, IdsAreDenseStableAndFound) {
  StringPool p;
  EXPECT_EQ(p.Intern(""), kEmptyString);
  EXPECT_EQ(p.size(), 1u);
  std::vector<std::string_view> seen;
  // Enough names to grow the index many times; every view stays valid.
  for (int i = 0; i < 200000; ++i) {
    std::string name = "kernel_" + std::to_string(i) + (i % 7 ? "" : std::string(300, 'x'));
    StringId id = p.Intern(name);
    ASSERT_EQ(id, static_cast<StringId>(i + 1));
    seen.push_back(p.Get(id));
  }
  for (int i = 0; i < 200000; i += 997) {
    std::string name = "kernel_" + std::to_string(i) + (i % 7 ? "" : std::string(300, 'x'));
    EXPECT_EQ(p.Intern(name), static_cast<StringId>(i + 1));
    EXPECT_EQ(seen[static_cast<size_t>(i)], name);
    StringId id = 0;
    ASSERT_TRUE(p.Find(name, &id));
    EXPECT_EQ(id, static_cast<StringId>(i + 1));
  }
  StringId id = 7;
  EXPECT_FALSE(p.Find("never interned", &id));
  EXPECT_EQ(id, kEmptyString);
  EXPECT_TRUE(p.Find("", &id));
  EXPECT_EQ(id, kEmptyString);
  // A string larger than a chunk, and one holding NUL bytes, are names like any other.
  std::string big(3 << 20, 'k');
  StringId b = p.Intern(big);
  EXPECT_EQ(p.Get(b), big);
  std::string nul("a\0b", 3);
  StringId n = p.Intern(nul);
  EXPECT_NE(n, p.Intern("a"));
  EXPECT_EQ(p.Intern(nul), n);
}

TEST(StringPool, MovedPoolKeepsItsNames) {
  StringPool p;
  StringId a = p.Intern("alpha"), b = p.Intern("beta");
  StringPool q = std::move(p);
  EXPECT_EQ(q.Intern("alpha"), a);
  EXPECT_EQ(q.Intern("beta"), b);
  EXPECT_EQ(q.Get(b), "beta");
  EXPECT_EQ(q.Intern("gamma"), 3u);
  // The moved-from pool is empty and usable again.
  StringId id = 9;
  EXPECT_FALSE(p.Find("alpha", &id));  // NOLINT(bugprone-use-after-move): what this tests
  EXPECT_EQ(p.Intern("x"), 1u);
  EXPECT_EQ(p.Intern(""), kEmptyString);
}

}  // namespace
}  // namespace gpuscope::base
