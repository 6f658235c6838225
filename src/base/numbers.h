#pragma once
// Exact number parsing from JSON text. Trace timestamps are decimal microseconds; converting
// them through a double loses nanoseconds once the value has 16+ digits, so they are parsed
// digit by digit into integer nanoseconds.

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuscope::base {

// Result of reading a decimal microsecond value.
struct MicrosToNs {
  int64_t ns = 0;
  int decimals = 0;      // digits after the point in the text
  bool rounded = false;  // more than 3 decimals: rounded half away from zero to 1 ns
};

// Parses "1234", "-5", "1234.567", "12.5" (= 12500 ns), "1.5e3"; nullopt if not a number or
// out of int64 range. `ns_digits`: digits after the point that make whole nanoseconds, i.e. the
// unit of the text (3: microseconds, the default; 9: seconds, 6: milliseconds, 0: nanoseconds).
std::optional<MicrosToNs> ParseMicrosToNs(std::string_view text, int ns_digits = 3);

// Integers: exact for the whole uint64 / int64 range; nullopt on anything else
// (fractions, overflow, text). ParseInt64 also accepts a fraction-free "12.0".
std::optional<uint64_t> ParseUint64(std::string_view text);
std::optional<int64_t> ParseInt64(std::string_view text);
std::optional<double> ParseDouble(std::string_view text);
// Hexadecimal ("0x7ffb26354000", "0X1F", "ff"): the digits after an optional 0x; nullopt when
// there are none, on anything else, or past uint64.
std::optional<uint64_t> ParseHexUint64(std::string_view text);

}  // namespace gpuscope::base
