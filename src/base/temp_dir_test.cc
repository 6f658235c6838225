#include "base/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace gpuscope::base {
namespace temp_dir_test {  // this file's helpers, apart in a unity build
namespace {

TEST(TempDir, GoesUnderTmpdirAndIsRemoved) {
  auto outer = TempDir::Create("gpuscope-test-outer");
  ASSERT_TRUE(outer.ok());
  const char* saved = std::getenv("TMPDIR");
  std::string keep = saved ? saved : "";
  setenv("TMPDIR", outer->path().c_str(), 1);
  std::string inner_path;
  {
    auto inner = TempDir::Create("gpuscope-run");
    ASSERT_TRUE(inner.ok());
    inner_path = inner->path();
    EXPECT_EQ(std::filesystem::path(inner_path).parent_path(), outer->path());
    EXPECT_TRUE(std::filesystem::is_directory(inner_path));
  }
  EXPECT_FALSE(std::filesystem::exists(inner_path));
  setenv("TMPDIR", (outer->path() + "/missing").c_str(), 1);
  auto fails = TempDir::Create("gpuscope-run");
  EXPECT_FALSE(fails.ok());
  EXPECT_NE(fails.status().message().find("/missing"), std::string::npos);
  if (saved)
    setenv("TMPDIR", keep.c_str(), 1);
  else
    unsetenv("TMPDIR");
}

}  // namespace
}  // namespace temp_dir_test
}  // namespace gpuscope::base
