#pragma once
// HashBytes: the hash of the string tables (StringPool, the importers' caches). Interning a
// name per event made std::hash (a byte-serial multiply chain) 3-4% of a Kineto ingest; this
// one folds 16 bytes per step with one 64x64->128-bit multiply, and reads a short tail with
// two overlapping loads instead of a byte loop. Not for anything an attacker could aim at
// (nothing here is: a bad spread only slows a probe).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gpuscope::base {

namespace hash_detail {
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// Both halves of the full product, folded: every input bit reaches many output bits.
inline uint64_t Fold(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
// Odd constants with their bits spread evenly (the digits of well-known irrational numbers).
inline constexpr uint64_t kK0 = 0x9E3779B97F4A7C15ULL;  // golden ratio
inline constexpr uint64_t kK1 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr uint64_t kK2 = 0x165667B19E3779F9ULL;
}  // namespace hash_detail

inline uint64_t HashBytes(const char* p, size_t n) {
  namespace d = hash_detail;
  uint64_t h = d::kK0 ^ (n * d::kK1);
  while (n > 16) {
    h = d::Fold(d::Load64(p) ^ d::kK1, d::Load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  // The last 1 - 16 bytes (or none), never read past the string.
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = d::Load64(p);
    b = d::Load64(p + n - 8);
  } else if (n >= 4) {
    a = d::Load32(p);
    b = d::Load32(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
        static_cast<unsigned char>(p[n - 1]);
  }
  h = d::Fold(a ^ d::kK2, b ^ h);
  return d::Fold(h ^ d::kK0, d::kK1);
}

inline uint64_t HashBytes(std::string_view s) { return HashBytes(s.data(), s.size()); }

// For unordered containers keyed by strings (transparent: a string_view finds a std::string).
struct BytesHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashBytes(s); }
};

}  // namespace gpuscope::base
