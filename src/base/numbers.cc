#include "base/numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gpuscope::base {
namespace {

constexpr int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                              100000, 1000000, 10000000, 100000000, 1000000000};

// Every spelling ParseMicrosToNs takes: exponents, integer parts too long for 64 bits, and
// each text the fast path leaves (it gives the answer, a number or nullopt).
std::optional<MicrosToNs> ParseMicrosToNsGeneral(std::string_view t, int ns_digits) {
  const int64_t scale = kPow10[ns_digits];
  if (t.empty()) return std::nullopt;
  if (t.find_first_of("eE") != std::string_view::npos) {
    // Exponent notation is rare (hand-written or re-serialised traces); long double keeps
    // 64 bits of mantissa, enough for any realistic value.
    std::string copy(t);
    char* end = nullptr;
    long double us = std::strtold(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(us)) return std::nullopt;
    long double ns = std::llround(us * static_cast<long double>(scale));
    if (std::fabs(ns) > 9.2e18L) return std::nullopt;
    MicrosToNs r;
    r.ns = static_cast<int64_t>(ns);
    r.decimals = ns_digits;
    r.rounded = true;
    return r;
  }
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i >= t.size()) return std::nullopt;
  __int128 whole = 0;
  size_t digits = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
    whole = whole * 10 + (t[i] - '0');
    if (whole > (static_cast<__int128>(1) << 90)) return std::nullopt;
  }
  MicrosToNs r;
  int64_t frac_ns = 0;
  if (i < t.size() && t[i] == '.') {
    ++i;
    int seen = 0;
    int round_digit = -1;
    bool sticky = false;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++seen) {
      int d = t[i] - '0';
      if (seen < ns_digits) {
        frac_ns = frac_ns * 10 + d;
      } else if (seen == ns_digits) {
        round_digit = d;
      } else if (d != 0) {
        sticky = true;
      }
    }
    if (seen == 0) return std::nullopt;
    r.decimals = seen;
    for (int k = seen; k < ns_digits; ++k) frac_ns *= 10;
    if (round_digit >= 0) {
      r.rounded = true;
      if (round_digit >= 5) frac_ns += 1;
      (void)sticky;
    }
  } else if (digits == 0) {
    return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  __int128 ns = whole * scale + frac_ns;
  if (ns > INT64_MAX) return std::nullopt;
  r.ns = static_cast<int64_t>(neg ? -ns : ns);
  return r;
}

inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// Reads the run of decimal digits at p into *v (modulo 2^64: callers look at how many there were
// before trusting it) and returns where it ends. Eight digits at a time where eight bytes are
// left: a timestamp's 13-16 digits are otherwise a chain of 13-16 dependent multiplies.
const char* ReadDigits(const char* p, const char* end, uint64_t* v) {
  uint64_t acc = *v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - p >= 8) {
    uint64_t chunk;
    std::memcpy(&chunk, p, 8);
    // A digit's high nibble is 3, and stays 3 when 6 is added. The first byte that breaks
    // either is the run's end (a carry out of a later byte cannot reach an earlier one).
    constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0, kThrees = 0x3030303030303030;
    const uint64_t wrong =
        ((chunk & kHigh) ^ kThrees) | (((chunk + 0x0606060606060606) & kHigh) ^ kThrees);
    const int digits = wrong == 0 ? 8 : __builtin_ctzll(wrong) / 8;
    if (digits == 0) break;
    chunk -= kThrees;  // the first digit in the lowest byte; no borrow leaves a digit
    // Fewer than 8: the digits move to the top bytes, the bytes below them are leading zeros.
    if (digits < 8) chunk <<= 8 * (8 - digits);
    chunk = chunk * 10 + (chunk >> 8);  // pairs: the low byte of each 16 bits
    chunk = (((chunk & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
             (((chunk >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
            32;
    acc = acc * static_cast<uint64_t>(kPow10[digits]) + chunk;
    p += digits;
    if (digits < 8) {
      *v = acc;
      return p;
    }
  }
#endif
  for (; p < end && IsDigit(*p); ++p) acc = acc * 10 + static_cast<uint64_t>(*p - '0');
  *v = acc;
  return p;
}

}  // namespace

// The fast path reads the common spelling ("-"? up to 18 digits, then "." and digits) in one
// pass with 64-bit arithmetic; anything else goes to the general reader, so both give the same
// answer for every text (an earlier version searched each text for an exponent first: a
// memchr per byte, a tenth of the Kineto ingest).
std::optional<MicrosToNs> ParseMicrosToNs(std::string_view t, int ns_digits) {
  if (ns_digits < 0 || ns_digits > 9) return std::nullopt;
  const char* p = t.data();
  const char* end = p + t.size();
  const bool neg = p < end && *p == '-';
  p += neg ? 1 : 0;
  const char* digits = p;
  uint64_t whole = 0;
  p = ReadDigits(p, end, &whole);
  if (p - digits > 18) return ParseMicrosToNsGeneral(t, ns_digits);
  MicrosToNs r;
  int64_t frac_ns = 0;
  if (p < end && *p == '.') {
    ++p;
    int seen = 0;
    int round_digit = -1;
    for (; p < end && IsDigit(*p); ++p, ++seen) {
      if (seen < ns_digits)
        frac_ns = frac_ns * 10 + (*p - '0');
      else if (seen == ns_digits)
        round_digit = *p - '0';
    }
    if (seen == 0) return ParseMicrosToNsGeneral(t, ns_digits);
    r.decimals = seen;
    for (int k = seen; k < ns_digits; ++k) frac_ns *= 10;
    if (round_digit >= 0) {
      r.rounded = true;
      if (round_digit >= 5) frac_ns += 1;
    }
  } else if (p == digits) {
    return ParseMicrosToNsGeneral(t, ns_digits);
  }
  if (p != end) return ParseMicrosToNsGeneral(t, ns_digits);
  const __int128 ns = static_cast<__int128>(whole) * kPow10[ns_digits] + frac_ns;
  if (ns > INT64_MAX) return std::nullopt;
  r.ns = static_cast<int64_t>(neg ? -ns : ns);
  return r;
}

namespace {

// `t` whole as a T in `base` (std::from_chars: no sign for unsigned, no spaces); nullopt when any
// of it is left over.
template <typename T, typename... Base>
std::optional<T> ParseWhole(std::string_view t, Base... base) {
  T v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base...);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<uint64_t> ParseHexUint64(std::string_view t) {
  if (t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  return ParseWhole<uint64_t>(t, 16);
}

std::optional<uint64_t> ParseUint64(std::string_view t) {
  uint64_t whole = 0;
  const char* stop = ReadDigits(t.data(), t.data() + t.size(), &whole);
  if (stop == t.data() + t.size() && !t.empty() && t.size() <= 19) return whole;
  return ParseWhole<uint64_t>(t);
}

std::optional<int64_t> ParseInt64(std::string_view t) {
  // The common spelling first: "-"? and up to 18 digits, nothing else (ids in every event).
  const bool neg = !t.empty() && t[0] == '-';
  const char* digits = t.data() + (neg ? 1 : 0);
  uint64_t whole = 0;
  const char* stop = ReadDigits(digits, t.data() + t.size(), &whole);
  if (stop == t.data() + t.size() && stop > digits && stop - digits <= 18)
    return neg ? -static_cast<int64_t>(whole) : static_cast<int64_t>(whole);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc()) return std::nullopt;
  if (p == t.data() + t.size()) return v;
  // Accept "12.0" / "12.000": some writers print integral ids as floats.
  if (*p != '.') return std::nullopt;
  for (++p; p < t.data() + t.size(); ++p) {
    if (*p != '0') return std::nullopt;
  }
  return v;
}

std::optional<double> ParseDouble(std::string_view t) { return ParseWhole<double>(t); }

}  // namespace gpuscope::base
