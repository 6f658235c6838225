#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuscope::base {
namespace string_pool_test {  // this file's helpers, apart in a unity build
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

// Absorb, both ways: a pool of mostly shared names is copied (its storage freed), one of mostly
// new names is adopted; either way every name keeps its text, shared names their ids, and the
// merged pool goes on interning.
TEST(StringPool, AbsorbMapsSharedNamesAndKeepsNewOnes) {
  for (bool mostly_new : {false, true}) {
    StringPool head;
    for (int i = 0; i < 1000; ++i) head.Intern("shared_" + std::to_string(i));
    StringPool other;
    std::vector<std::string> names;
    for (int i = 0; i < 1000; ++i) names.push_back("shared_" + std::to_string(i));
    for (int i = 0; i < (mostly_new ? 5000 : 10); ++i) names.push_back("new_" + std::to_string(i));
    names.push_back(std::string(1 << 20, 'L'));  // its own allocation
    for (const auto& n : names) other.Intern(n);
    const size_t before = head.size();
    std::vector<StringId> ids = head.Absorb(std::move(other));
    ASSERT_EQ(ids.size(), names.size() + 1);
    EXPECT_EQ(ids[0], kEmptyString);
    EXPECT_EQ(head.size(), before + names.size() - 1000);
    for (size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(head.Get(ids[i + 1]), names[i]);
      StringId found = 0;
      ASSERT_TRUE(head.Find(names[i], &found));
      EXPECT_EQ(found, ids[i + 1]);
    }
    EXPECT_EQ(ids[1], head.Intern("shared_0"));
    EXPECT_EQ(other.size(), 1u);  // NOLINT(bugprone-use-after-move): what this tests
    StringId next = head.Intern("after the merge");
    EXPECT_EQ(next, static_cast<StringId>(head.size() - 1));
    EXPECT_EQ(head.Get(next), "after the merge");
  }
}

}  // namespace
}  // namespace string_pool_test
}  // namespace gpuscope::base
