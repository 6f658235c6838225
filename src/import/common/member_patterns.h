#pragma once
// MemberPatterns: what one reader of many like objects (the events of a trace) learnt about
// their members' spelling. A writer prints the same bytes between a member's value and the next
// member's value, object after object: `, "cat": ` after the "ph" value, `, "name": ` after the
// "cat" value. For each member position (the first sixteen) this holds the last such run of
// bytes the tokenizer read - separator, whitespace, the quoted key, ':' and whitespace - and the
// key's place in it. Where the bytes at the cursor are the same, the member's key is known
// without tokenizing them: the tokenizer, given the same bytes, reads them the same way. It
// holds no state of the parse, only a guess that is checked whole, so a miss costs one compare
// and the tokenizer's usual work, and a reader may keep it across windows and items.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuscope::import {

class MemberPatterns {
 public:
  static constexpr size_t kPositions = 16;  // member positions learnt per object
  static constexpr size_t kMaxBytes = 32;   // the longest run kept (two 16-byte compares)

  // Whether the bytes at `q` repeat the run learnt for member `position`; if so, *key views the
  // key inside them and *len is the run's length. `q` must be followed by at least kMaxBytes
  // readable bytes (JsonCursor's window is followed by kJsonPadding NUL bytes, which no learnt
  // run holds, so no match reaches past the window).
  bool Match(size_t position, const char* q, std::string_view* key, size_t* len) const {
    if (position >= kPositions) return false;
    const Pattern& p = patterns_[position];
    if (p.len == 0) return false;
#if defined(__SSE2__)
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16));
    const __m128i want_lo = _mm_load_si128(reinterpret_cast<const __m128i*>(p.bytes));
    const __m128i want_hi = _mm_load_si128(reinterpret_cast<const __m128i*>(p.bytes + 16));
    const uint32_t equal =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, want_lo))) |
        (static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, want_hi))) << 16);
    if ((equal & p.mask) != p.mask) return false;
#else
    if (std::memcmp(q, p.bytes, p.len) != 0) return false;
#endif
    *key = std::string_view(q + p.key_offset, p.key_len);
    *len = p.len;
    return true;
  }

  // The byte the object's reader keeps with the run learnt for member `position` (its own
  // classification of the key, say), or null where none is learnt. 0 after each Learn.
  uint8_t* Tag(size_t position) {
    if (position >= kPositions || patterns_[position].len == 0) return nullptr;
    return &patterns_[position].tag;
  }

  // Learns the run [begin, value) read for member `position` and its key. Runs longer than
  // kMaxBytes, and keys that do not lie inside the run (decoded from escapes into an arena), are
  // not learnt: the position then keeps no pattern until a plain one comes.
  void Learn(size_t position, const char* begin, std::string_view key, const char* value) {
    if (position >= kPositions) return;
    Pattern& p = patterns_[position];
    const size_t len = static_cast<size_t>(value - begin);
    // (As addresses: a key decoded into an arena is another object than the window.)
    const auto at = [](const char* q) { return reinterpret_cast<uintptr_t>(q); };
    const bool inside = at(key.data()) >= at(begin) && at(key.data() + key.size()) <= at(value);
    if (len == 0 || len > kMaxBytes || !inside) {
      p.len = 0;
      return;
    }
    std::memset(p.bytes, 0, sizeof(p.bytes));
    std::memcpy(p.bytes, begin, len);
    p.len = static_cast<uint8_t>(len);
    p.mask = len == 32 ? 0xFFFFFFFFu : (uint32_t{1} << len) - 1;
    p.key_offset = static_cast<uint8_t>(key.data() - begin);
    p.key_len = static_cast<uint8_t>(key.size());
    p.tag = 0;
  }

 private:
  struct Pattern {
    alignas(16) char bytes[kMaxBytes] = {};
    uint32_t mask = 0;  // one bit per byte of the run
    uint8_t len = 0;    // 0: nothing learnt
    uint8_t key_offset = 0, key_len = 0;
    uint8_t tag = 0;  // the reader's, see Tag()
  };
  Pattern patterns_[kPositions];
};

}  // namespace gpuscope::import
