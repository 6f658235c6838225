#include "base/numbers.h"

#include <gtest/gtest.h>

#include <charconv>
#include <climits>
#include <random>
#include <string>

namespace gpuscope::base {
namespace numbers_test {  // this file's helpers, apart in a unity build
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

// The one-pass reader takes up to 18 integer digits; longer ones, exponents and odd spellings
// go to the general reader. Both sides of each border give the exact answer.
TEST(ParseMicrosToNs, EveryBorderOfTheFastPathGivesTheExactAnswer) {
  // 18 digits (fast), 19 digits (general), the int64 edge on both sides.
  EXPECT_EQ(ParseMicrosToNs("123456789012345678", 0)->ns, 123456789012345678LL);
  EXPECT_EQ(ParseMicrosToNs("1234567890123456789", 0)->ns, 1234567890123456789LL);
  EXPECT_EQ(ParseMicrosToNs("9223372036854775807", 0)->ns, INT64_MAX);
  EXPECT_FALSE(ParseMicrosToNs("9223372036854775808", 0));
  EXPECT_EQ(ParseMicrosToNs("-9223372036854775.807")->ns, -INT64_MAX);
  EXPECT_FALSE(ParseMicrosToNs("9223372036854776"));  // 18 digits of us past int64 ns
  // Exponents anywhere, either case, negative ones.
  EXPECT_EQ(ParseMicrosToNs("1e3")->ns, 1000000);
  EXPECT_EQ(ParseMicrosToNs("1E3")->ns, 1000000);
  EXPECT_EQ(ParseMicrosToNs("-2.5e-1")->ns, -250);
  // No integer digits, rounding carried into the integer part, odd spellings.
  EXPECT_EQ(ParseMicrosToNs(".5")->ns, 500);
  EXPECT_EQ(ParseMicrosToNs("1.9995")->ns, 2000);
  EXPECT_TRUE(ParseMicrosToNs("0.0000004")->rounded);
  EXPECT_EQ(ParseMicrosToNs("0.0000004")->ns, 0);
  for (const char* bad : {"-", "+5", "5.", "1.5x", " 1", "1 ", "--1", "0x10"})
    EXPECT_FALSE(ParseMicrosToNs(bad)) << bad;
}

// The fast readers (eight digits at a time) against a plain digit-by-digit reference, on random
// spellings of every length around their borders (7-9, 15-20 digits) and every unit.
TEST(ParseMicrosToNs, RandomSpellingsMatchADigitByDigitReference) {
  std::mt19937_64 rng(54);
  auto digits = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
    return s;
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const bool neg = rng() % 4 == 0;
    const std::string whole = digits(static_cast<int>(rng() % 21));
    const int frac_len = static_cast<int>(rng() % 13) - 1;  // -1: no point
    const std::string frac = frac_len >= 0 ? digits(frac_len) : "";
    std::string text = neg ? "-" : "";  // (in steps: GCC 12's -Wrestrict misfires on a + b + c)
    text += whole;
    if (frac_len >= 0) text += '.';
    text += frac;
    const int unit = static_cast<int>(rng() % 10);
    // The reference: integer part and the first `unit` decimals, rounded half up on the next.
    std::optional<int64_t> want;
    if (!whole.empty() || frac_len > 0) {
      if (frac_len != 0) {
        __int128 ns = 0;
        bool too_big = false;
        for (char c : whole) {
          ns = ns * 10 + (c - '0');
          too_big = too_big || ns > (static_cast<__int128>(1) << 90);
        }
        for (int k = 0; k < unit; ++k) ns = ns * 10 + (k < frac_len ? frac[k] - '0' : 0);
        if (frac_len > unit && frac[unit] >= '5') ns += 1;
        if (!too_big && ns <= INT64_MAX) want = static_cast<int64_t>(neg ? -ns : ns);
      }
    }
    auto got = ParseMicrosToNs(text, unit);
    ASSERT_EQ(got.has_value(), want.has_value()) << text << " unit " << unit;
    if (want) {
      ASSERT_EQ(got->ns, *want) << text << " unit " << unit;
    }
  }
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text = rng() % 4 == 0 ? "-" : "";
    text += digits(static_cast<int>(rng() % 22));
    int64_t i = 0;
    uint64_t u = 0;
    const char* end = text.data() + text.size();
    auto ri = std::from_chars(text.data(), end, i);
    auto ru = std::from_chars(text.data(), end, u);
    const bool int_ok = !text.empty() && ri.ec == std::errc() && ri.ptr == end;
    const bool uint_ok = !text.empty() && ru.ec == std::errc() && ru.ptr == end;
    ASSERT_EQ(ParseInt64(text).has_value(), int_ok) << text;
    if (int_ok) {
      ASSERT_EQ(*ParseInt64(text), i) << text;
    }
    ASSERT_EQ(ParseUint64(text).has_value(), uint_ok) << text;
    if (uint_ok) {
      ASSERT_EQ(*ParseUint64(text), u) << text;
    }
  }
}

// The eight-digit reader stops inside a chunk at the first byte that is not a digit, whatever
// its value: bytes below '0' borrow and bytes from 0xFA carry when the chunk is converted, and
// neither may change the digits before them.
TEST(ParseIntegers, AStopByteOfAnyValueEndsTheDigitsBeforeIt) {
  const std::string digits = "9876543210987654";
  for (int b = 0; b < 256; ++b) {
    const char stop = static_cast<char>(b);
    if (stop >= '0' && stop <= '9') continue;
    for (size_t k = 1; k <= digits.size(); ++k) {  // past a whole chunk too: 9 - 16
      std::string text = digits.substr(0, k);
      text += stop;
      text += "75";
      EXPECT_FALSE(ParseUint64(text)) << k << " digits, then byte " << b;
      if (stop != '.') {
        EXPECT_FALSE(ParseInt64(text)) << k << " digits, then byte " << b;
        continue;
      }
      // "ddd.75": k digits read whole, then the decimals (16 digits of us are past int64 ns).
      const __int128 ns = static_cast<__int128>(std::stoll(digits.substr(0, k))) * 1000 + 750;
      auto got = ParseMicrosToNs(text);
      ASSERT_EQ(got.has_value(), ns <= INT64_MAX) << text;
      if (got) {
        EXPECT_EQ(got->ns, static_cast<int64_t>(ns)) << text;
      }
    }
  }
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
}  // namespace numbers_test
}  // namespace gpuscope::base
