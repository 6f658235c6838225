#include "base/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/temp_dir.h"

namespace gpuscope::base {
namespace mapped_file_test {  // this file's helpers, apart in a unity build
namespace {

std::string Write(const TempDir& dir, const std::string& name, const std::string& bytes) {
  std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Sizes around a page: the padding after the file reads as zeros whether the file ends inside a
// page (the kernel zeroes the rest) or exactly on one (the reservation's own page).
TEST(MappedFile, HoldsTheFileThenReadableZeros) {
  auto dir = TempDir::Create("gpuscope-mapped");
  ASSERT_TRUE(dir.ok());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t size : {size_t{1}, size_t{100}, page - 1, page, page + 1, 3 * page}) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>('A' + i % 23);
    auto mapped = MappedFile::Open(Write(*dir, "f" + std::to_string(size), bytes), 64);
    ASSERT_TRUE(mapped.ok()) << mapped.status().message();
    ASSERT_EQ((*mapped)->size(), size);
    EXPECT_EQ(std::string((*mapped)->data(), size), bytes);
    for (size_t i = 0; i < 64; ++i) ASSERT_EQ((*mapped)->data()[size + i], 0) << size << " " << i;
  }
}

TEST(MappedFile, ReleasedPagesReadTheSameAgain) {
  auto dir = TempDir::Create("gpuscope-mapped");
  ASSERT_TRUE(dir.ok());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::string bytes(10 * page + 7, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 % 251);
  auto mapped = MappedFile::Open(Write(*dir, "f", bytes), 64);
  ASSERT_TRUE(mapped.ok());
  const MappedFile& m = **mapped;
  EXPECT_EQ(std::string(m.data(), m.size()), bytes);
  m.Release(0, 3 * page + 5);          // whole pages only: [0, 3 pages)
  m.Release(page / 2, m.size() + 99);  // past the end: clamped
  EXPECT_EQ(std::string(m.data(), m.size()), bytes);
}

TEST(MappedFile, RefusesWhatItCannotMap) {
  auto dir = TempDir::Create("gpuscope-mapped");
  ASSERT_TRUE(dir.ok());
  EXPECT_FALSE(MappedFile::Open(Write(*dir, "empty", ""), 64).ok());
  EXPECT_FALSE(MappedFile::Open(dir->path(), 64).ok());
  auto missing = MappedFile::Open(dir->path() + "/missing.json", 64);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.json"), std::string::npos);
}

}  // namespace
}  // namespace mapped_file_test
}  // namespace gpuscope::base
