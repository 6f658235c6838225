#include "base/utf8.h"

#include <cstdint>
#include <cstdio>

namespace gpuscope::base {

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto at = [&s](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char d = at(i + 1);
  if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) ||
      (c == 0xF4 && d > 0x8F))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return n;
}

bool IsCleanUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\0') return false;
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

bool IsAsciiControl(unsigned char u) { return u < 0x20 || u == 0x7f; }

// The code point of the well-formed sequence of `n` bytes at s[i].
uint32_t CodePoint(std::string_view s, size_t i, size_t n) {
  auto at = [&s](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  if (n == 2) return ((at(i) & 0x1F) << 6) | (at(i + 1) & 0x3F);
  if (n == 3) return ((at(i) & 0x0F) << 12) | ((at(i + 1) & 0x3F) << 6) | (at(i + 2) & 0x3F);
  return ((at(i) & 0x07) << 18) | ((at(i + 1) & 0x3F) << 12) | ((at(i + 2) & 0x3F) << 6) |
         (at(i + 3) & 0x3F);
}

bool IsEscapedCodePoint(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// Calls plain(i, n) for each run of n bytes at i shown as they are and escaped(i, n, cp) for
// each sequence escaped (n = 1 and cp = the byte for a control or a byte that is not UTF-8).
template <typename Plain, typename Escaped>
void Scan(std::string_view s, bool keep_lines, Plain plain, Escaped escaped) {
  size_t run = 0;
  for (size_t i = 0; i < s.size();) {
    auto u = static_cast<unsigned char>(s[i]);
    size_t n = 1;
    bool bad = false;
    uint32_t cp = u;
    if (u < 0x80) {
      bad = IsAsciiControl(u) && !(keep_lines && (u == '\n' || u == '\t'));
    } else {
      n = Utf8SequenceLength(s, i);
      if (n == 0) {
        n = 1;
        bad = true;
      } else {
        cp = CodePoint(s, i, n);
        bad = IsEscapedCodePoint(cp);
        if (!bad) cp = u;
      }
      if (bad && n == 1) cp = u;
    }
    if (bad) {
      if (i > run) plain(run, i - run);
      escaped(n, cp);
      run = i + n;
    }
    i += n;
  }
  if (s.size() > run) plain(run, s.size() - run);
}

}  // namespace

std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  Scan(
      text, true, [&](size_t i, size_t n) { out.append(text, i, n); },
      [&](size_t n, uint32_t cp) {
        char buf[12];
        if (n == 1)
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
        else
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        out += buf;
      });
  return out;
}

bool HasControl(std::string_view s) {
  bool found = false;
  Scan(
      s, true, [](size_t, size_t) {}, [&](size_t, uint32_t) { found = true; });
  return found;
}

}  // namespace gpuscope::base
