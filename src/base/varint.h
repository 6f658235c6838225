#pragma once
// LEB128 varints (signed values zigzag-encoded first) and FNV-1a: the byte-level pieces of
// gpuscope's compact encodings (the rank timeline codec, the .rpd's packed Python frames) and
// of its content fingerprints.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuscope::base {

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Reads one varint of `in` at `*at` and advances it; false when the bytes end first or the
// varint runs past ten bytes (`*at` then says nothing useful).
inline bool GetVarint(std::string_view in, size_t* at, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*at >= in.size()) return false;
    auto b = static_cast<uint8_t>(in[(*at)++]);
    *v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

inline constexpr uint64_t kFnvOffset = 1469598103934665603ull;

// FNV-1a over `n` bytes, continuing from `h`.
inline uint64_t Fnv1a(const void* p, size_t n, uint64_t h = kFnvOffset) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
inline uint64_t Fnv1a(std::string_view s, uint64_t h = kFnvOffset) {
  return Fnv1a(s.data(), s.size(), h);
}

}  // namespace gpuscope::base
