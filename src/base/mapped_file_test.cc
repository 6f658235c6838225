#include "base/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
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

// A trace still being written grows after it is mapped: the bytes after the size seen at Open
// stay zeros (the last partial page is a copy, not the file's page, which would show them).
TEST(MappedFile, BytesAppendedAfterOpeningAreNotSeen) {
  auto dir = TempDir::Create("gpuscope-mapped");
  ASSERT_TRUE(dir.ok());
  const std::string path = Write(*dir, "growing.json", std::string(100, 'a'));
  auto mapped = MappedFile::Open(path, 64);
  ASSERT_TRUE(mapped.ok());
  std::ofstream(path, std::ios::binary | std::ios::app) << std::string(5000, 'b');
  const MappedFile& m = **mapped;
  ASSERT_EQ(m.size(), 100u);
  EXPECT_EQ(std::string(m.data(), 100), std::string(100, 'a'));
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(m.data()[100 + i], 0) << i;
}

// A file that shrinks under its mapping: SIGBUS, turned into one line naming the file and exit
// code 2. (Not under AddressSanitizer, which keeps SIGBUS for its own report.)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUSCOPE_ASAN 1
#endif
#endif
#if !defined(GPUSCOPE_ASAN) && !defined(__SANITIZE_ADDRESS__)
TEST(MappedFileDeathTest, AFileThatShrinksEndsInOneLine) {
  auto dir = TempDir::Create("gpuscope-mapped");
  ASSERT_TRUE(dir.ok());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const std::string path = Write(*dir, "shrinking.json", std::string(4 * page, 'a'));
  EXPECT_EXIT(
      {
        MappedFile::InstallBusErrorLine();
        auto mapped = MappedFile::Open(path, 64);
        if (!mapped.ok()) std::_Exit(3);
        if (truncate(path.c_str(), 0) != 0) std::_Exit(4);
        volatile char c = (*mapped)->data()[2 * page];
        (void)c;
        std::_Exit(5);
      },
      ::testing::ExitedWithCode(2), "shrinking.json: the file shrank or could not be read");
}
#endif

// Releasing pages keeps the bytes (they come back from the page cache) and stays inside the
// file whatever range it is given; it cannot show that memory went back (only a crash or a
// changed byte fails here).
TEST(MappedFile, ReleasingPagesKeepsTheBytes) {
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
