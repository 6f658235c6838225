#include "import/common/json_cursor.h"

#include <cstdint>
#include <cstdio>

#include "base/json_bytes.h"

namespace gpuscope::import {
namespace {

inline bool IsAtomChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '+' || c == '.';
}

// What a one-letter escape stands for: \n \t \r \b \f; \" \\ \/ and, leniently, any other
// letter, itself.
char Unescaped(char c) {
  constexpr std::string_view kLetters = "ntrbf", kMeanings = "\n\t\r\b\f";
  const size_t i = kLetters.find(c);
  return i == std::string_view::npos ? c : kMeanings[i];
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Scan JsonCursor::Peek(char* c) {
  while (base::IsJsonSpace(*p_)) ++p_;
  *c = *p_;
  if (*p_ == 0) return p_ >= end_ ? Scan::kNeedMore : Fail("NUL byte in JSON text");
  return Scan::kOk;
}

Scan JsonCursor::Expect(char c) {
  char got;
  Scan s = Peek(&got);
  if (s != Scan::kOk) return s;
  if (got != c) {
    static thread_local char what[32];
    std::snprintf(what, sizeof(what), "expected '%c'", c);
    return Fail(what);
  }
  ++p_;
  return Scan::kOk;
}

Scan JsonCursor::SkipString() {
  // Most strings are short keys and names: a byte loop beats memchr's call overhead there.
  // The window's NUL padding stops the loop at the end without a bounds check.
  const char* q = p_ + 1;
  while (true) {
    char c = *q;
    if (c == '"') {
      p_ = q + 1;
      return Scan::kOk;
    }
    if (c == '\\') {
      if (q[1] == 0 && q + 1 >= end_) return Scan::kNeedMore;
      q += 2;
      continue;
    }
    if (c == 0 && q >= end_) return Scan::kNeedMore;
    ++q;
  }
}

Scan JsonCursor::String(std::string_view* out, std::deque<std::string>* arena) {
  char c;
  Scan s = Peek(&c);
  if (s != Scan::kOk) return s;
  if (c != '"') return Fail("expected a string");
  const char* begin = p_ + 1;
  // Fast path: no escape before the closing quote.
  const char* q = begin;
  while (*q != '"' && *q != '\\' && *q != 0) ++q;
  if (*q == '"') {
    *out = std::string_view(begin, static_cast<size_t>(q - begin));
    p_ = q + 1;
    return Scan::kOk;
  }
  if (*q == 0 && q >= end_) return Scan::kNeedMore;
  s = SkipString();
  if (s != Scan::kOk) return s;
  const char* close = p_ - 1;
  std::string& buf = arena->emplace_back();
  buf.reserve(static_cast<size_t>(close - begin));
  for (const char* in = begin; in < close; ++in) {
    if (*in != '\\') {
      buf.push_back(*in);
      continue;
    }
    ++in;
    if (*in != 'u') {
      buf.push_back(Unescaped(*in));
      continue;
    }
    uint32_t cp = 0;
    for (int k = 1; k <= 4; ++k) {
      int h = in + k < close ? HexValue(in[k]) : -1;
      if (h < 0) {
        p_ = in;
        return Fail("bad \\u escape in string");
      }
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    in += 4;
    // A surrogate pair spells one code point beyond the BMP.
    if (cp >= 0xD800 && cp < 0xDC00 && in + 6 < close && in[1] == '\\' && in[2] == 'u') {
      uint32_t lo = 0;
      bool ok = true;
      for (int k = 3; k <= 6; ++k) {
        int h = HexValue(in[k]);
        ok = ok && h >= 0;
        lo = lo * 16 + static_cast<uint32_t>(h < 0 ? 0 : h);
      }
      if (ok && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        in += 6;
      }
    }
    AppendUtf8(buf, cp);
  }
  *out = buf;
  return Scan::kOk;
}

Scan JsonCursor::Atom(std::string_view* out) {
  char c;
  Scan s = Peek(&c);
  if (s != Scan::kOk) return s;
  const char* begin = p_;
  while (IsAtomChar(*p_)) ++p_;
  if (p_ == begin) return Fail("expected a value");
  if (*p_ == 0 && p_ >= end_) return Scan::kNeedMore;  // the token may continue
  *out = std::string_view(begin, static_cast<size_t>(p_ - begin));
  return Scan::kOk;
}

Scan JsonCursor::Scalar(std::string_view* out, bool* is_string, std::deque<std::string>* arena) {
  char c;
  Scan s = Peek(&c);
  if (s != Scan::kOk) return s;
  *is_string = c == '"';
  if (c == '{' || c == '[') return Fail("expected a scalar");
  return *is_string ? String(out, arena) : Atom(out);
}

Scan JsonCursor::SkipValue() {
  char c;
  Scan s = Peek(&c);
  if (s != Scan::kOk) return s;
  if (c == '"') return SkipString();
  if (c != '{' && c != '[') {
    std::string_view ignored;
    return Atom(&ignored);
  }
  int depth = 0;
  while (true) {
    char b = *p_;
    switch (b) {
      case '{':
      case '[':
        ++depth;
        ++p_;
        break;
      case '}':
      case ']':
        ++p_;
        if (--depth == 0) return Scan::kOk;
        break;
      case '"':
        s = SkipString();
        if (s != Scan::kOk) return s;
        break;
      case 0:
        return Fail("NUL byte in JSON text");
      default:
        ++p_;
    }
  }
}

}  // namespace gpuscope::import
