#include "analysis/common/name_memo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/common/call_names.h"

namespace gpuscope::analysis {
namespace name_memo_test {  // this file's helpers, apart in a unity build
namespace {

// Answers equal the test's, and each distinct name is tested once, however many rows share it.
TEST(NameMemo, AsksEachDistinctNameOnce) {
  model::Trace t;
  const model::StringId sync = t.strings.Intern("cudaStreamSynchronize");
  const model::StringId launch = t.strings.Intern("cudaLaunchKernel");
  const model::StringId empty = t.strings.Intern("");
  int asked = 0;
  NameMemo memo(t, [&](std::string_view n) {
    ++asked;
    return n.find("Synchronize") != std::string_view::npos;
  });
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(memo(sync));
    EXPECT_FALSE(memo(launch));
    EXPECT_FALSE(memo(empty));
  }
  EXPECT_EQ(asked, 3);
  // A name added after the memo was made is asked each time, not read past the memo's end.
  const model::StringId later = t.strings.Intern("hipDeviceSynchronize");
  EXPECT_TRUE(memo(later));
  EXPECT_TRUE(memo(later));
  EXPECT_EQ(asked, 5);
}

// A plain function works as the test (the form the analyses use).
bool IsLong(std::string_view n) { return n.size() > 4; }

TEST(NameMemo, TakesAFunction) {
  model::Trace t;
  const model::StringId a = t.strings.Intern("ab"), b = t.strings.Intern("abcdef");
  NameMemo memo(t, IsLong);
  EXPECT_FALSE(memo(a));
  EXPECT_TRUE(memo(b));
  EXPECT_FALSE(memo(a));
}

// Memoised, a test answers as the test called directly: one definition of each name test
// (a second IsGraphLaunchApi, of six exact names, once answered for the memoised calls).
TEST(NameMemo, AnswersAsTheDirectCall) {
  model::Trace t;
  const std::vector<std::string_view> names = {"cudaGraphLaunch", "hipGraphLaunch_spt",
                                               "cudaGraphLaunch_ptsz", "cuGraphLaunch",
                                               "cudaLaunchKernel"};
  for (std::string_view n : names) t.strings.Intern(n);
  NameMemo graph_launch(t, IsGraphLaunchApi);
  for (std::string_view n : names) {
    const model::StringId id = t.strings.Intern(n);
    EXPECT_EQ(graph_launch(id), IsGraphLaunchApi(n)) << n;
    EXPECT_EQ(graph_launch(id), n != "cudaLaunchKernel") << n;
  }
}

}  // namespace
}  // namespace name_memo_test
}  // namespace gpuscope::analysis
