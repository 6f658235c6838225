#include "base/numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gpuscope::base {

std::optional<MicrosToNs> ParseMicrosToNs(std::string_view t, int ns_digits) {
  static constexpr int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
  if (ns_digits < 0 || ns_digits > 9) return std::nullopt;
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

std::optional<uint64_t> ParseUint64(std::string_view t) { return ParseWhole<uint64_t>(t); }

std::optional<int64_t> ParseInt64(std::string_view t) {
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
