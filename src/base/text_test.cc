#include "base/text.h"

#include <gtest/gtest.h>

namespace gpuscope::base {
namespace text_test {  // this file's helpers, apart in a unity build
namespace {

TEST(Demangle, ItaniumNames) {
  EXPECT_EQ(Demangle("_Z10gemm_tile1PfS_i"), "gemm_tile1(float*, float*, int)");
  EXPECT_EQ(Demangle("void at::native::f<4>(int)"), "void at::native::f<4>(int)");
  EXPECT_EQ(Demangle("_Znot_really"), "_Znot_really");  // invalid: kept as is
}

TEST(Format, CountsAndDurations) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(123456), "123,456");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(Counted(1, "copy blocks", "copies block"), "1 copy blocks");
  EXPECT_EQ(Counted(0, "gap", "gaps"), "0 gaps");
  EXPECT_EQ(Counted(1200, "gap", "gaps"), "1,200 gaps");
  EXPECT_EQ(FormatDuration(999), "999 ns");
  EXPECT_EQ(FormatDuration(1500), "1.500 us");
  EXPECT_EQ(FormatDuration(2500000000), "2.500 s");
  EXPECT_EQ(FormatBytes(1000000), "1.0 MB");
}

TEST(WrapHanging, WrapsAtSpacesWithIndent) {
  EXPECT_EQ(WrapHanging("fix: pin the host memory and copy asynchronously", 20, 5),
            "fix: pin the host\n     memory and copy\n     asynchronously");
  EXPECT_EQ(WrapHanging("short", 20, 2), "short");
  std::string cut = WrapHanging("a " + std::string(30, 'x'), 14, 2);
  for (size_t p = 0, q; p < cut.size(); p = q + 1) {
    q = std::min(cut.find('\n', p), cut.size());
    EXPECT_LE(q - p, 14u) << cut;
  }
}

TEST(WrapLongLines, HangsUnderTheLabel) {
  std::string text = "title\n  fix: use pinned host memory and non_blocking copies\nend\n";
  EXPECT_EQ(WrapLongLines(text, 30),
            "title\n  fix: use pinned host memory\n       and non_blocking copies\nend\n");
  EXPECT_EQ(WrapLongLines(text, 100), text);
}

TEST(ClosestWord, SuggestsTyposOnly) {
  std::vector<std::string> commands = {"info", "stats", "analyze", "diff", "convert", "report"};
  EXPECT_EQ(ClosestWord("anaylze", commands), "analyze");
  EXPECT_EQ(ClosestWord("stat", commands), "stats");
  EXPECT_EQ(ClosestWord("--formt", {"--format", "--top", "--by"}), "--format");
  EXPECT_EQ(ClosestWord("banana", commands), "");
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(Text, AsciiCaseChangesLettersOnly) {
  EXPECT_EQ(AsciiLower("MI300X H100-SXM"), "mi300x h100-sxm");
  EXPECT_EQ(AsciiUpper("bf16 fp8"), "BF16 FP8");
  EXPECT_EQ(AsciiUpper("caf\xc3\xa9"), "CAF\xc3\xa9");  // UTF-8 bytes as they are
  EXPECT_EQ(AsciiLower(""), "");
}

// One escaping for every view and CSV: C0 (but newline and tab), DEL and bytes that are not
// UTF-8 as \xNN; C1 controls and bidirectional controls as \uXXXX; other text untouched.
TEST(EscapeControl, EscapesEveryControlVisiblyAndKeepsTheRest) {
  EXPECT_EQ(EscapeControl("a\x1b[2Jb\n\tc\x7f"), "a\\x1b[2Jb\n\tc\\x7f");
  EXPECT_EQ(EscapeControl("k\xc2\x9b"
                          "31m k\xc2\x85 k\xe2\x80\xaetxt k\xe2\x81\xa6"),
            "k\\u009b31m k\\u0085 k\\u202etxt k\\u2066");
  EXPECT_EQ(EscapeControl("raw \x9b byte, cut \xe2\x80"), "raw \\x9b byte, cut \\xe2\\x80");
  EXPECT_EQ(EscapeControl("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80");
  EXPECT_FALSE(HasControl("caf\xc3\xa9\tline\n"));
  EXPECT_TRUE(HasControl("k\xe2\x80\xae"));
}

}  // namespace
}  // namespace text_test
}  // namespace gpuscope::base
