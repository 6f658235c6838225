#include "base/pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gpuscope::base {
namespace pattern_test {  // this file's helpers, apart in a unity build
namespace {

// What std::regex could not: a name of 100,000 characters (recursion per character) and a
// pattern that backtracks exponentially, each matched at once.
TEST(Pattern, LongNamesAndBacktrackingPatternsMatchInLinearTime) {
  std::string name(100000, 'a');
  auto start = std::chrono::steady_clock::now();
  struct Case {
    const char* pattern;
    bool on_name, on_name_and_bang;  // (a+)+$ fails on the second only after trying everything
  };
  for (const Case& c : {Case{"^a+$", true, false}, Case{"(a|b)*", true, true},
                        Case{".*gemm.*", false, false}, Case{"(a+)+$", true, false}}) {
    auto re = Pattern::Compile(c.pattern, "--kernels");
    ASSERT_TRUE(re.ok()) << c.pattern;
    EXPECT_EQ(re->Search(name), c.on_name) << c.pattern;
    EXPECT_EQ(re->Search(name + "!"), c.on_name_and_bang) << c.pattern;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Pattern, BadAndOverlongPatternsAreOneLine) {
  for (std::string p : {std::string("("), std::string("a{2,1}"), std::string(2000, 'x')}) {
    auto re = Pattern::Compile(p, "--kernels");
    ASSERT_FALSE(re.ok()) << p;
    EXPECT_EQ(re.status().message().find('\n'), std::string::npos);
    EXPECT_EQ(re.status().message().rfind("--kernels", 0), 0u) << re.status().message();
  }
}

}  // namespace
}  // namespace pattern_test
}  // namespace gpuscope::base
