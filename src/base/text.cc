#include "base/text.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>

// libiberty's demangler is the one c++filt uses; libstdc++'s __cxa_demangle in GCC 12 lacks
// newer manglings (DF16b = std::bfloat16_t, common in ROCm ck_tile kernels).
extern "C" {
#include <libiberty/demangle.h>
}

#include <algorithm>
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

std::string WrapHanging(std::string_view text, size_t width, size_t indent) {
  width = std::max(width, indent + 10);
  std::vector<std::string> lines(1);
  size_t cols = 0;  // of the last line
  auto next_line = [&]() {
    lines.emplace_back(indent, ' ');
    cols = indent;
  };
  for (size_t i = 0; i < text.size();) {
    size_t j = std::min(text.find(' ', i), text.size());
    std::string_view word = text.substr(i, j - i);
    i = j + 1;
    if (word.empty()) continue;
    size_t w = DisplayWidth(word);
    bool empty = lines.size() == 1 ? cols == 0 : cols == indent;
    if (!empty && cols + 1 + w > width) next_line(), empty = true;
    if (!empty) lines.back() += ' ', ++cols;
    while (cols + w > width) {  // a word longer than a line: cut it
      size_t b = PrefixBytes(word, width - cols);
      lines.back() += word.substr(0, b);
      w -= width - cols;
      word.remove_prefix(b);
      next_line();
    }
    lines.back() += word;
    cols += w;
  }
  std::string out = lines[0];
  for (size_t k = 1; k < lines.size(); ++k) out += "\n" + lines[k];
  return out;
}

namespace {

// A row of an aligned table (three or more gaps of two spaces after its first cell and a short
// last cell, or a rule of dashes): wrapping it would break its columns, so it is left to the
// table to fit. A line whose last part is long prose is not one.
bool LooksLikeTableRow(std::string_view line) {
  size_t lead = std::min(line.find_first_not_of(' '), line.size());
  if (line.find_first_not_of("- ", lead) == std::string_view::npos) return true;
  size_t first_gap = line.find("  ", lead);
  if (first_gap != std::string_view::npos && first_gap > lead && line[first_gap - 1] == ':')
    return false;  // "where:    ...": a labelled line, not a row
  int gaps = 0;
  size_t last = lead;
  for (size_t p = line.find("  ", lead); p != std::string_view::npos; p = line.find("  ", p)) {
    ++gaps;
    p = line.find_first_not_of(' ', p);
    if (p == std::string_view::npos) break;
    last = p;
  }
  return gaps >= 3 && DisplayWidth(line.substr(last)) <= 40;
}

}  // namespace

std::string WrapLongLines(std::string_view text, size_t width) {
  std::string out;
  out.reserve(text.size());
  for (size_t p = 0; p < text.size();) {
    size_t q = std::min(text.find('\n', p), text.size());
    std::string_view line = text.substr(p, q - p);
    if (DisplayWidth(line) <= width || LooksLikeTableRow(line)) {
      out += line;
    } else {
      size_t lead = std::min(line.find_first_not_of(' '), line.size());
      // The part kept as written (indent, label and the spaces after it) and the hang.
      size_t keep = lead, hang = lead + 2;
      size_t colon = line.find(": ", lead);
      size_t gap = line.find("  ", lead);  // an aligned key: "  Collectives   10 ..."
      if (gap != std::string_view::npos && gap - lead <= 24 &&
          (colon == std::string_view::npos || gap < colon)) {
        keep = hang = std::min(line.find_first_not_of(' ', gap), line.size());
      } else if (colon != std::string_view::npos && colon - lead <= 14 &&
                 std::count(line.begin() + lead, line.begin() + colon, ' ') <= 1) {
        keep = hang = std::min(line.find_first_not_of(' ', colon + 1), line.size());
      }
      keep = std::min(keep, width / 2);  // a label wider than half the line hangs less
      hang = std::max(keep, std::min(hang, width / 2));
      std::string_view head = line.substr(0, keep);
      std::string wrapped = WrapHanging(line.substr(keep), width - keep, hang - keep);
      out += head;
      std::string pad(keep, ' ');
      for (char c : wrapped) {
        out += c;
        if (c == '\n') out += pad;
      }
    }
    if (q < text.size()) out += '\n';
    p = q + 1;
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string ClosestWord(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
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

std::string Counted(uint64_t n, std::string_view one, std::string_view many) {
  return FormatCount(n) + " " + std::string(n == 1 ? one : many);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t tab; (tab = line.find('\t')) != std::string_view::npos; line.remove_prefix(tab + 1))
    fields.push_back(line.substr(0, tab));
  fields.push_back(line);
  return fields;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string OneLine(std::string_view message, size_t max) {
  std::string folded;
  for (char c : message) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (folded.empty() || folded.back() == ' ')) continue;
    folded += space ? ' ' : c;
  }
  std::string out = EscapeControl(folded);
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

}  // namespace gpuscope::base
