#pragma once
// JsonCursor: the small pull tokenizer every JSON importer uses. It works on a window of the
// file held in memory and followed by kJsonPadding NUL bytes, so the hot loops need no bounds
// checks: a NUL byte is either the end of the window (-> kNeedMore: the caller refills the
// window and retries the whole item) or invalid JSON (-> kError). Nothing here allocates
// except unescaping a string that contains backslashes.

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace gpuscope::import {

inline constexpr size_t kJsonPadding = 64;

enum class Scan : unsigned char { kOk, kNeedMore, kError };

class JsonCursor {
 public:
  JsonCursor(const char* p, const char* end) : p_(p), end_(end) {}

  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }
  const char* error_at() const { return error_at_; }
  const char* error_what() const { return error_what_; }

  // Skips whitespace and returns the next byte without consuming it; 0 at the window end.
  Scan Peek(char* c);
  // Skips whitespace, then consumes `c` or fails.
  Scan Expect(char c);
  // Reads a string; `out` views the window, or `arena` when escapes had to be decoded.
  Scan String(std::string_view* out, std::deque<std::string>* arena);
  // Reads a number / true / false / null token as text.
  Scan Atom(std::string_view* out);
  // Reads any scalar: a string (is_string = true) or an atom.
  Scan Scalar(std::string_view* out, bool* is_string, std::deque<std::string>* arena);
  // Skips one whole value of any kind.
  Scan SkipValue();
  // Reports `what` at the current position (kNeedMore if that is the window's end).
  Scan Unexpected(const char* what) { return Fail(what); }

 private:
  Scan Fail(const char* what) {
    if (p_ >= end_) return Scan::kNeedMore;
    error_at_ = p_;
    error_what_ = what;
    return Scan::kError;
  }
  Scan SkipString();  // p_ at the opening quote

  const char* p_;
  const char* end_;
  const char* error_at_ = nullptr;
  const char* error_what_ = "";
};

// Calls f(key, first) for each member of the object at the cursor ('{'): the cursor is at the
// member's value and `first` is the value's first character; f reads or skips the value and
// returns the scan. Stops at the first scan that is not kOk. The one loop over an object's
// members: every reader of members is a function of a key.
template <typename F>
Scan ForEachMember(JsonCursor& c, std::deque<std::string>* arena, F&& f) {
  Scan s = c.Expect('{');
  if (s != Scan::kOk) return s;
  for (bool first = true;; first = false) {
    char ch;
    if ((s = c.Peek(&ch)) != Scan::kOk) return s;
    if (ch == '}') {
      c.set_pos(c.pos() + 1);
      return Scan::kOk;
    }
    if (!first && (s = c.Expect(',')) != Scan::kOk) return s;
    std::string_view key;
    if ((s = c.String(&key, arena)) != Scan::kOk) return s;
    if ((s = c.Expect(':')) != Scan::kOk) return s;
    if ((s = c.Peek(&ch)) != Scan::kOk) return s;
    if ((s = f(key, ch)) != Scan::kOk) return s;
  }
}

// Calls f(key, value, is_string) for each scalar member of the object at the cursor ('{');
// members holding objects or arrays are skipped. Stops at the first scan that is not kOk.
template <typename F>
Scan ForEachScalarMember(JsonCursor& c, std::deque<std::string>* arena, F&& f) {
  return ForEachMember(c, arena, [&](std::string_view key, char first) {
    if (first == '{' || first == '[') return c.SkipValue();
    std::string_view value;
    bool is_string = false;
    Scan s = c.Scalar(&value, &is_string, arena);
    if (s == Scan::kOk) f(key, value, is_string);
    return s;
  });
}

}  // namespace gpuscope::import
