#pragma once
// Small text helpers shared by every layer: demangling, wrapping, number formatting.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8.h"

namespace gpuscope::base {

// Demangles an Itanium C++ name ("_Z..."); returns the input unchanged when it is not one.
std::string Demangle(std::string_view name);
bool LooksMangled(std::string_view name);

// Display columns of `s` (code points; names are shortened by base/short_name.h).
size_t DisplayWidth(std::string_view s);
// Byte offset of the first `cols` display columns of `s` (its size when it is narrower).
size_t PrefixBytes(std::string_view s, size_t cols);
// `text` wrapped at spaces to `width` display columns; lines after the first start with `indent`
// spaces (a hanging indent). A word longer than a line is cut.
std::string WrapHanging(std::string_view text, size_t width, size_t indent);

// Every line of `text` longer than `width` display columns wrapped by WrapHanging, its
// continuation lines indented under the text after the line's label ("  fix: ...", a word or two
// of at most 14 columns) or, without one, two columns past the line's own indent. Shorter lines are
// kept as they are.
std::string WrapLongLines(std::string_view text, size_t width);

// Levenshtein distance between two words (for "did you mean" suggestions).
size_t EditDistance(std::string_view a, std::string_view b);
// The candidate nearest to `word` when it is near enough to be a typo of it, else "".
std::string ClosestWord(std::string_view word, const std::vector<std::string>& candidates);

// "1.234 ms" style human durations from integer nanoseconds.
std::string FormatDuration(int64_t ns);
// "12.3 MB" style sizes (decimal units, as nsys and rocprof print them).
std::string FormatBytes(int64_t bytes);
// Integer with thousands separators: 1234567 -> "1,234,567".
std::string FormatCount(uint64_t n);
// A count with the noun (or phrase) that agrees with it: Counted(1, "gap", "gaps") -> "1 gap",
// Counted(1200, ...) -> "1,200 gaps".
std::string Counted(uint64_t n, std::string_view one, std::string_view many);
// Fixed-point with `decimals` digits.
std::string FormatFixed(double v, int decimals);

// `s` with ASCII letters lowered / raised (other bytes, UTF-8 included, as they are).
std::string AsciiLower(std::string_view s);
std::string AsciiUpper(std::string_view s);

// The fields of a tab-separated line (an empty line is one empty field).
std::vector<std::string_view> SplitTabs(std::string_view line);
// Words joined by ", ": {"a", "b"} -> "a, b".
std::string JoinWords(const std::vector<std::string>& words);

// A message as one line: line breaks and tabs become spaces (runs folded), and a message longer
// than `max` loses its middle ("..."), so a library's multi-line error (SQLite's schema SQL)
// stays one line on stderr.
std::string OneLine(std::string_view message, size_t max = 400);

// printf-style formatting into a std::string (for report text built before it is printed).
std::string StrFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace gpuscope::base
