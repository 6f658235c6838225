#include "base/hash.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <string>

namespace gpuscope::base {
namespace hash_test {  // this file's helpers, apart in a unity build
namespace {

// Each length from 0 to 64 from an allocation of exactly that size: the sanitizers' build
// fails here if the tail's loads read past the string.
TEST(HashBytes, ReadsOnlyTheStringAtEveryLength) {
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 64; ++n) {
    std::unique_ptr<char[]> bytes(new char[n == 0 ? 1 : n]);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>('a' + i % 26);
    seen.insert(HashBytes(bytes.get(), n));
  }
  EXPECT_EQ(seen.size(), 65u);  // every prefix of one text hashes apart
}

TEST(HashBytes, EqualTextsHashEquallyWhereverTheyLie) {
  const std::string a = "aten::convolution_backward_overrideable";
  const std::string b = "xx" + a;
  EXPECT_EQ(HashBytes(a), HashBytes(std::string_view(b).substr(2)));
  EXPECT_EQ(BytesHash{}(a), HashBytes(a));
}

// One changed bit anywhere in texts of every length changes the hash (no byte is left out of
// the head, the 16-byte steps or the overlapping tail), and the low bits that index a table
// spread: 20,000 distinct names fill most of 2^12 buckets' worth of low values.
TEST(HashBytes, EveryByteCountsAndTheLowBitsSpread) {
  std::mt19937_64 rng(54);
  for (size_t n = 1; n <= 48; ++n) {
    std::string text(n, '\0');
    for (char& c : text) c = static_cast<char>(rng());
    const uint64_t h = HashBytes(text);
    for (size_t i = 0; i < n; ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string flipped = text;
        flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
        ASSERT_NE(HashBytes(flipped), h) << "length " << n << ", byte " << i << ", bit " << bit;
      }
    }
  }
  std::set<uint64_t> low;
  for (int i = 0; i < 20000; ++i) low.insert(HashBytes("kernel_" + std::to_string(i)) & 4095);
  EXPECT_GT(low.size(), 3900u);  // a uniform hash fills 4,096 * (1 - e^-4.9) = 4,065
}

}  // namespace
}  // namespace hash_test
}  // namespace gpuscope::base
