#include "import/common/json_cursor.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuscope::import {
namespace json_cursor_test {  // this file's helpers, apart in a unity build
namespace {

// A window as the readers hold one: the text, then kJsonPadding NUL bytes.
struct Window {
  explicit Window(std::string text) : size(text.size()), bytes(std::move(text)) {
    bytes.append(kJsonPadding, '\0');
  }
  JsonCursor Cursor() const { return JsonCursor(bytes.data(), bytes.data() + size); }
  size_t size;
  std::string bytes;
};

// Number tokens of every length across the 16-byte steps, with the bytes the step does not
// take ('e', '+', letters) early, late or not at all, ended by each byte that can follow a
// value: the token is exactly the number's bytes.
TEST(JsonCursorAtom, ReadsEveryNumberWholeWhateverEndsIt) {
  for (size_t n = 1; n <= 40; ++n) {
    for (const char* shape : {"digits", "exponent", "late-exponent", "negative"}) {
      std::string number;
      for (size_t i = 0; i < n; ++i) number += static_cast<char>('0' + (i * 7 + 3) % 10);
      const std::string s = shape;
      if (s == "exponent" && n > 3) number.replace(1, 2, "e+");
      if (s == "late-exponent" && n > 20) number.replace(n - 3, 2, "E-");
      if (s == "negative") {  // (in steps: GCC 12's -Wrestrict misfires on a + b + c)
        std::string negative = "-";
        negative += number.substr(0, n - 1);
        if (n > 2) negative += '.';
        negative += '5';
        number = negative;
      }
      for (char end : {',', '}', ']', ' ', '\n', ':', '"'}) {
        std::string text = number;
        text += end;
        text += '1';
        Window w(text);
        JsonCursor c = w.Cursor();
        std::string_view token;
        ASSERT_EQ(c.Atom(&token), Scan::kOk) << number << end;
        EXPECT_EQ(token, number) << shape << " " << n;
        EXPECT_EQ(*c.pos(), end);
      }
    }
  }
}

// At the window's end a token may go on in the next read: kNeedMore, at every length.
TEST(JsonCursorAtom, ATokenThatReachesTheWindowsEndAsksForMore) {
  for (size_t n = 1; n <= 40; ++n) {
    Window w(std::string(n, '7'));
    JsonCursor c = w.Cursor();
    std::string_view token;
    EXPECT_EQ(c.Atom(&token), Scan::kNeedMore) << n;
  }
  for (const char* literal : {"true", "false", "null"}) {
    Window w(std::string(literal) + "}");
    JsonCursor c = w.Cursor();
    std::string_view token;
    ASSERT_EQ(c.Atom(&token), Scan::kOk);
    EXPECT_EQ(token, literal);
  }
}

TEST(JsonCursorAtom, NoTokenIsAnErrorWhereItStands) {
  for (const char* text : {"}", "]", ",1", "\"a\""}) {
    Window w(text);
    JsonCursor c = w.Cursor();
    std::string_view token;
    EXPECT_EQ(c.Atom(&token), Scan::kError) << text;
    EXPECT_EQ(c.error_at(), w.bytes.data()) << text;
  }
}

// MemberPatterns: a run is learnt whole or not at all, matches only the same bytes, and the tag
// kept with it starts at 0 each time the run is learnt anew.
TEST(MemberPatterns, LearnsPlainRunsAndMatchesOnlyTheSameBytes) {
  MemberPatterns learnt;
  const std::string run = ", \"cat\": ";
  std::string text = run;
  text += "\"x\"";
  Window w(text);
  learnt.Learn(1, w.bytes.data(), std::string_view(w.bytes.data() + 3, 3), w.bytes.data() + 9);
  std::string_view key;
  size_t len = 0;
  ASSERT_TRUE(learnt.Match(1, w.bytes.data(), &key, &len));
  EXPECT_EQ(key, "cat");
  EXPECT_EQ(len, run.size());
  EXPECT_FALSE(learnt.Match(0, w.bytes.data(), &key, &len));  // another position
  EXPECT_FALSE(learnt.Match(2, w.bytes.data(), &key, &len));
  for (std::string other : {", \"cot\": ", ",  \"cat\": ", ", \"cat\" : ", ", \"cat"}) {
    Window o(other);  // the last: cut at the window's end, the padding's NUL never matches
    EXPECT_FALSE(learnt.Match(1, o.bytes.data(), &key, &len)) << other;
  }
  uint8_t* tag = learnt.Tag(1);
  ASSERT_NE(tag, nullptr);
  *tag = 7;
  EXPECT_EQ(*learnt.Tag(1), 7);
  learnt.Learn(1, w.bytes.data(), std::string_view(w.bytes.data() + 3, 3), w.bytes.data() + 9);
  EXPECT_EQ(*learnt.Tag(1), 0);
  // A key decoded into an arena (outside the run) and a run over 32 bytes are not learnt.
  std::string decoded = "cat";
  learnt.Learn(1, w.bytes.data(), decoded, w.bytes.data() + 9);
  EXPECT_EQ(learnt.Tag(1), nullptr);
  EXPECT_FALSE(learnt.Match(1, w.bytes.data(), &key, &len));
  Window longer(", \"wait_on_cuda_event_record_corr_id\": 1");
  const char* b = longer.bytes.data();
  learnt.Learn(2, b, std::string_view(b + 3, 33), b + 39);
  EXPECT_FALSE(learnt.Match(2, b, &key, &len));
  Window exact(", \"01234567890123456789012345\": 1");  // 32 bytes up to the value
  const char* e = exact.bytes.data();
  learnt.Learn(3, e, std::string_view(e + 3, 26), e + 32);
  ASSERT_TRUE(learnt.Match(3, e, &key, &len));
  EXPECT_EQ(len, 32u);
  EXPECT_FALSE(learnt.Match(MemberPatterns::kPositions, e, &key, &len));
}

// ForEachMember hands f the tag kept with each learnt run: what f made of a key is there the
// next time the same bytes come, and only then.
TEST(MemberPatterns, ForEachMemberKeepsWhatTheReaderMadeOfEachKey) {
  MemberPatterns learnt;
  std::deque<std::string> arena;
  auto read = [&](const std::string& text) {
    Window w(text);
    JsonCursor c = w.Cursor();
    std::string seen;
    Scan s = ForEachMember(c, &arena, &learnt, [&](std::string_view key, char, uint8_t& tag) {
      seen += key;
      seen += '=';
      seen += std::to_string(tag);
      seen += ' ';
      tag = static_cast<uint8_t>(key.size());
      return c.SkipValue();
    });
    EXPECT_EQ(s, Scan::kOk) << text;
    return seen;
  };
  EXPECT_EQ(read(R"({"ab": 1, "abc": 2})"), "ab=0 abc=0 ");
  EXPECT_EQ(read(R"({"ab": 3, "abc": 4})"), "ab=2 abc=3 ");
  EXPECT_EQ(read(R"({"abc": 3, "ab": 4})"), "abc=0 ab=0 ");
  EXPECT_EQ(read(R"({"abc": 3, "ab": 4, "x": 5})"), "abc=3 ab=2 x=0 ");
  EXPECT_EQ(read(R"({"a\u0062": 1})"), "ab=0 ");  // decoded: nothing kept
  EXPECT_EQ(read(R"({"a\u0062": 1})"), "ab=0 ");
}

}  // namespace
}  // namespace json_cursor_test
}  // namespace gpuscope::import
