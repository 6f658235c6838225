#include "base/text.h"

#include <cstdarg>
#include <cstdio>

// libiberty's demangler is the one c++filt uses; libstdc++'s __cxa_demangle in GCC 12 lacks
// newer manglings (DF16b = std::bfloat16_t, common in ROCm ck_tile kernels).
extern "C" {
#include <libiberty/demangle.h>
}

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace gpuscope::base {

bool LooksMangled(std::string_view name) {
  return name.size() > 2 && name[0] == '_' && name[1] == 'Z';
}

std::string Demangle(std::string_view name) {
  if (!LooksMangled(name)) return std::string(name);
  std::string copy(name);
  std::unique_ptr<char, decltype(&std::free)> out(
      cplus_demangle(copy.c_str(), DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES), &std::free);
  if (!out) return copy;
  return std::string(out.get());
}

size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++w;  // count code points, not continuation bytes
  }
  return w;
}

namespace {

// Replaces the contents of every outermost <...> and (...) with an ellipsis.
std::string FoldBrackets(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  int depth = 0;
  char open = 0;
  for (char c : name) {
    if (depth == 0) {
      out.push_back(c);
      if (c == '<' || c == '(') {
        open = c;
        depth = 1;
        out += "\xE2\x80\xA6";  // …
      }
      continue;
    }
    char close = open == '<' ? '>' : ')';
    if (c == open) {
      ++depth;
    } else if (c == close) {
      if (--depth == 0) out.push_back(c);
    }
  }
  return out;
}

// Byte offset of the first `cols` code points.
size_t PrefixBytes(std::string_view s, size_t cols) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == cols) return i;
      ++seen;
    }
  }
  return s.size();
}

}  // namespace

std::string ShortenName(std::string_view name, size_t width) {
  if (DisplayWidth(name) <= width) return std::string(name);
  std::string folded = FoldBrackets(name);
  if (DisplayWidth(folded) <= width) return folded;
  if (width < 4) return folded.substr(0, PrefixBytes(folded, width));
  // Keep the head (namespace, kernel family) and the tail (the distinguishing suffix).
  size_t total = DisplayWidth(folded);
  size_t keep = width - 1;
  size_t head = (keep * 2 + 2) / 3;
  size_t tail = keep - head;
  std::string out = folded.substr(0, PrefixBytes(folded, head));
  out += "\xE2\x80\xA6";
  out += folded.substr(PrefixBytes(folded, total - tail));
  return out;
}

std::string FormatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string FormatDuration(int64_t ns) {
  double a = ns < 0 ? -static_cast<double>(ns) : static_cast<double>(ns);
  if (a < 1e3) return std::to_string(ns) + " ns";
  if (a < 1e6) return FormatFixed(ns / 1e3, 3) + " us";
  if (a < 1e9) return FormatFixed(ns / 1e6, 3) + " ms";
  return FormatFixed(ns / 1e9, 3) + " s";
}

std::string FormatBytes(int64_t bytes) {
  double a = static_cast<double>(bytes);
  if (bytes < 1000) return std::to_string(bytes) + " B";
  if (a < 1e6) return FormatFixed(a / 1e3, 1) + " kB";
  if (a < 1e9) return FormatFixed(a / 1e6, 1) + " MB";
  return FormatFixed(a / 1e9, 2) + " GB";
}

std::string FormatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  int k = static_cast<int>(digits.size() % 3);
  if (k == 0) k = 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && static_cast<int>(i) % 3 == k % 3) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string OneLine(std::string_view message, size_t max) {
  std::string out;
  for (char c : message) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max && max >= 10) {
    size_t keep = (max - 3) / 2;
    out = out.substr(0, keep) + "..." + out.substr(out.size() - keep);
  }
  return out;
}

std::string StrFormat(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

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

}  // namespace gpuscope::base
