#include "cli/option_checks.h"

#include <gtest/gtest.h>

namespace gpuscope::cli {
namespace option_checks_test {  // this file's helpers, apart in a unity build
namespace {

std::string Check(const CLI::Validator& v, std::string in) { return v(in); }

TEST(OptionChecks, RangesInWords) {
  EXPECT_EQ(Check(WholeIn(0, 64), "8"), "");
  EXPECT_EQ(Check(WholeIn(0, 64), "100"), "'100' is not a whole number from 0 to 64");
  EXPECT_EQ(Check(WholeIn(0, 64), "8x"), "'8x' is not a whole number from 0 to 64");
  EXPECT_EQ(Check(Finite(0, 1e6), "1e308"), "'1e308' is not a number from 0 to 1000000");
  EXPECT_EQ(Check(Finite(0.001, 1e6), "nan"), "'nan' is not a number from 0.001 to 1000000");
  EXPECT_EQ(NumberText(1e300), "1e+300");  // never 301 digits
}

TEST(OptionChecks, DidYouMeanForValues) {
  CLI::Validator by = OneOf({"kernels", "memops", "api"});
  EXPECT_EQ(Check(by, "kernels"), "");
  EXPECT_EQ(Check(by, "kernel"),
            "'kernel' is not one of: kernels, memops, api; did you mean 'kernels'?");
  EXPECT_EQ(Check(by, "zzzzzz"), "'zzzzzz' is not one of: kernels, memops, api");
}

TEST(OptionChecks, MissingArgumentsNamedAsTheUsageNamesThem) {
  CLI::App app{"gpuscope"};
  CLI::App* diff = app.add_subcommand("diff", "Compare two runs");
  std::string before, after;
  diff->add_option("before", before, "The run before")->required();
  diff->add_option("after", after, "The run after")->required();
  const char* argv[] = {"gpuscope", "diff", "a.json"};
  try {
    app.parse(3, const_cast<char**>(argv));
    FAIL() << "parsed without AFTER";
  } catch (const CLI::ParseError& e) {
    std::string m = UserMessage(app, e);
    EXPECT_NE(m.find("diff: the AFTER trace"), std::string::npos) << m;
    EXPECT_NE(m.find("gpuscope diff BEFORE AFTER"), std::string::npos) << m;
    EXPECT_EQ(m.find("is required"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace option_checks_test
}  // namespace gpuscope::cli
