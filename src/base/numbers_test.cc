#include "base/numbers.h"

#include <gtest/gtest.h>

namespace gpuscope::base {
namespace {

TEST(ParseMicrosToNs, IntegerMicroseconds) {
  EXPECT_EQ(ParseMicrosToNs("1234")->ns, 1234000);
  EXPECT_EQ(ParseMicrosToNs("0")->ns, 0);
  EXPECT_EQ(ParseMicrosToNs("-5")->ns, -5000);
  EXPECT_EQ(ParseMicrosToNs("1234")->decimals, 0);
}

TEST(ParseMicrosToNs, ThreeDecimalsAreExactNanoseconds) {
  EXPECT_EQ(ParseMicrosToNs("1234.567")->ns, 1234567);
  EXPECT_EQ(ParseMicrosToNs("0.001")->ns, 1);
  EXPECT_EQ(ParseMicrosToNs("1234.567")->decimals, 3);
}

TEST(ParseMicrosToNs, SixteenPlusDigitsStayExact) {
  // Absolute epoch microseconds with ns decimals: a double would lose the last digits.
  EXPECT_EQ(ParseMicrosToNs("1606910596297023.123")->ns, 1606910596297023123LL);
  EXPECT_EQ(ParseMicrosToNs("3743411222578.748")->ns, 3743411222578748LL);
}

TEST(ParseMicrosToNs, FewerDecimalsArePadded) {
  // ".5" is half a microsecond. (Kineto's 2024-03 unpadded-decimals bug printed 5 ns as ".5";
  // that cannot be told apart in the text, so the literal decimal meaning is used.)
  EXPECT_EQ(ParseMicrosToNs("12.5")->ns, 12500);
  EXPECT_EQ(ParseMicrosToNs("12.50")->ns, 12500);
}

TEST(ParseMicrosToNs, MoreDecimalsRoundToNearestNs) {
  auto r = ParseMicrosToNs("1.0004");
  EXPECT_EQ(r->ns, 1000);
  EXPECT_TRUE(r->rounded);
  EXPECT_EQ(ParseMicrosToNs("1.0005")->ns, 1001);
}

TEST(ParseMicrosToNs, ExponentNotation) { EXPECT_EQ(ParseMicrosToNs("1.5e3")->ns, 1500000); }

TEST(ParseMicrosToNs, RejectsGarbage) {
  EXPECT_FALSE(ParseMicrosToNs(""));
  EXPECT_FALSE(ParseMicrosToNs("abc"));
  EXPECT_FALSE(ParseMicrosToNs("12."));
  EXPECT_FALSE(ParseMicrosToNs("1.2.3"));
  EXPECT_FALSE(ParseMicrosToNs("99999999999999999999999"));  // beyond int64 ns
}

TEST(ParseIntegers, Uint64AboveInt64Max) {
  EXPECT_EQ(*ParseUint64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*ParseUint64("10159970886766084423"), 10159970886766084423ULL);
  EXPECT_FALSE(ParseUint64("18446744073709551616"));
  EXPECT_FALSE(ParseInt64("10159970886766084423"));
  EXPECT_EQ(*ParseInt64("12.000"), 12);
  EXPECT_FALSE(ParseInt64("12.5"));
}

TEST(ParseHexUint64, AcceptsDigitsAfterAnOptionalPrefix) {
  EXPECT_EQ(ParseHexUint64("0x00007ffb26354000"), 0x7ffb26354000u);
  EXPECT_EQ(ParseHexUint64("0XfF"), 255u);
  EXPECT_EQ(ParseHexUint64("10"), 16u);
  EXPECT_EQ(ParseHexUint64("0xffffffffffffffff"), UINT64_MAX);
  EXPECT_FALSE(ParseHexUint64("0x"));
  EXPECT_FALSE(ParseHexUint64(""));
  EXPECT_FALSE(ParseHexUint64("0x12g"));
  EXPECT_FALSE(ParseHexUint64("-1"));
  EXPECT_FALSE(ParseHexUint64("0x1ffffffffffffffff"));  // past uint64
}

}  // namespace
}  // namespace gpuscope::base
