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

}  // namespace
}  // namespace json_cursor_test
}  // namespace gpuscope::import
