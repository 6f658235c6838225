#pragma once
// JsonCursor: the small pull tokenizer every JSON importer uses. It works on a window of the
// file held in memory and followed by kJsonPadding NUL bytes, so the hot loops need no bounds
// checks: a NUL byte is either the end of the window (-> kNeedMore: the caller refills the
// window and retries the whole item) or invalid JSON (-> kError). Nothing here allocates
// except unescaping a string that contains backslashes. The token readers are inline: they run
// once or more per member of every event, and a call each was a tenth of the ingest time.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/json_bytes.h"
#include "import/common/member_patterns.h"

namespace gpuscope::import {

inline constexpr size_t kJsonPadding = 64;

enum class Scan : unsigned char { kOk, kNeedMore, kError };

// The first byte at or after `q` that is '"', '\\' or NUL: where a string's plain run stops.
// SSE2 compares 16 bytes at a time. Reading past the string is safe because `q` lies in a window
// followed by kJsonPadding NUL bytes and the scan stops at the first NUL: no load starts past the
// window's end, so none reaches past its padding.
inline const char* FindStringStop(const char* q) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i nul = _mm_setzero_si128();
  while (true) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, nul)),
                                     _mm_cmpeq_epi8(v, backslash));
    const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (bits != 0) return q + __builtin_ctz(bits);
    q += 16;
  }
#else
  while (*q != '"' && *q != '\\' && *q != 0) ++q;
  return q;
#endif
}

// Whether a byte can be part of a number / true / false / null token: a table, one load per
// byte of every number (the compares per byte were 5% of a Kineto ingest's instructions; the
// table saves half of that).
struct AtomChars {
  bool is[256] = {};
  constexpr AtomChars() {
    for (int c = 0; c < 256; ++c) {
      is[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '-' || c == '+' || c == '.';
    }
  }
};
inline constexpr AtomChars kAtomChars;
inline bool IsAtomChar(char c) { return kAtomChars.is[static_cast<unsigned char>(c)]; }

// The first byte at or after `q` that is not part of a number / true / false / null token
// (IsAtomChar). Numbers are most of the tokens: SSE2 steps over digits, '.' and '-' 16 bytes at
// a time, and the byte loop reads on from where they stop ('e', '+', letters). The loads are
// safe as FindStringStop's: `q` holds a token byte, so it lies in the window, and the next load
// starts only past 16 token bytes, none of them the padding's NUL.
inline const char* FindAtomEnd(const char* q) {
#if defined(__SSE2__)
  const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
  const __m128i dot = _mm_set1_epi8('.'), minus = _mm_set1_epi8('-');
  while (true) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i d = _mm_sub_epi8(v, zero);  // a digit's value, 0 - 9 unsigned
    const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, nine), d);
    const __m128i ok =
        _mm_or_si128(digit, _mm_or_si128(_mm_cmpeq_epi8(v, dot), _mm_cmpeq_epi8(v, minus)));
    const unsigned stops = ~static_cast<unsigned>(_mm_movemask_epi8(ok)) & 0xFFFFu;
    if (stops != 0) {
      q += __builtin_ctz(stops);
      break;
    }
    q += 16;
  }
#endif
  while (IsAtomChar(*q)) ++q;
  return q;
}

class JsonCursor {
 public:
  JsonCursor(const char* p, const char* end) : p_(p), end_(end) {}

  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }
  const char* error_at() const { return error_at_; }
  const char* error_what() const { return error_what_; }

  // Skips whitespace and returns the next byte without consuming it; 0 at the window end.
  Scan Peek(char* c) {
    while (base::IsJsonSpace(*p_)) ++p_;
    *c = *p_;
    if (*p_ == 0) [[unlikely]]
      return p_ >= end_ ? Scan::kNeedMore : Fail("NUL byte in JSON text");
    return Scan::kOk;
  }
  // Skips whitespace, then consumes `c` or fails.
  Scan Expect(char c) {
    char got;
    Scan s = Peek(&got);
    if (s != Scan::kOk) return s;
    if (got != c) [[unlikely]]
      return ExpectedChar(c);
    ++p_;
    return Scan::kOk;
  }
  // Reads a string; `out` views the window, or `arena` when escapes had to be decoded.
  Scan String(std::string_view* out, std::deque<std::string>* arena) {
    char c;
    Scan s = Peek(&c);
    if (s != Scan::kOk) return s;
    if (c != '"') return Fail("expected a string");
    const char* begin = p_ + 1;
    const char* stop = FindStringStop(begin);
    if (*stop != '"') [[unlikely]]
      return EscapedString(begin, stop, out, arena);
    *out = std::string_view(begin, static_cast<size_t>(stop - begin));
    p_ = stop + 1;
    return Scan::kOk;
  }
  // Reads a number / true / false / null token as text.
  Scan Atom(std::string_view* out) {
    char c;
    Scan s = Peek(&c);
    if (s != Scan::kOk) return s;
    const char* begin = p_;
    p_ = FindAtomEnd(p_);
    if (p_ == begin) return Fail("expected a value");
    if (*p_ == 0 && p_ >= end_) return Scan::kNeedMore;  // the token may continue
    *out = std::string_view(begin, static_cast<size_t>(p_ - begin));
    return Scan::kOk;
  }
  // Reads any scalar: a string (is_string = true) or an atom.
  Scan Scalar(std::string_view* out, bool* is_string, std::deque<std::string>* arena) {
    char c;
    Scan s = Peek(&c);
    if (s != Scan::kOk) return s;
    *is_string = c == '"';
    if (c == '{' || c == '[') return Fail("expected a scalar");
    return *is_string ? String(out, arena) : Atom(out);
  }
  // Skips one whole value of any kind.
  Scan SkipValue();
  // Reports `what` at the current position (kNeedMore if that is the window's end).
  Scan Unexpected(const char* what) { return Fail(what); }

 private:
  Scan Fail(const char* what) {
    if (p_ >= end_) return Scan::kNeedMore;
    error_at_ = p_;
    error_what_ = what;
    return Scan::kError;
  }
  Scan SkipString();          // p_ at the opening quote
  Scan ExpectedChar(char c);  // the failure of Expect(c)
  // The rest of String() once its plain run stopped at `stop` (a backslash or NUL), p_ still at
  // the opening quote: decodes the escapes into `arena`.
  Scan EscapedString(const char* begin, const char* stop, std::string_view* out,
                     std::deque<std::string>* arena);

  const char* p_;
  const char* end_;
  const char* error_at_ = nullptr;
  const char* error_what_ = "";
};

// Calls f(key, first) for each member of the object at the cursor ('{'): the cursor is at the
// member's value and `first` is the value's first character; f reads or skips the value and
// returns the scan. Stops at the first scan that is not kOk. The one loop over an object's
// members: every reader of members is a function of a key. With `learnt`, a member whose bytes
// repeat those learnt at its position is not tokenized up to its value (MemberPatterns), and an
// f that takes a third argument, f(key, first, tag), gets the byte kept with the learnt run
// (0 the first time; a byte of its own, 0 every time, where nothing is learnt) to keep what it
// made of the key.
template <typename F>
Scan ForEachMember(JsonCursor& c, std::deque<std::string>* arena, MemberPatterns* learnt, F&& f) {
  Scan s = c.Expect('{');
  if (s != Scan::kOk) return s;
  for (size_t position = 0;; ++position) {
    const char* const begin = c.pos();
    std::string_view key;
    char ch;
    size_t len = 0;
    uint8_t scratch = 0;
    uint8_t* tag = &scratch;
    if (learnt != nullptr && learnt->Match(position, begin, &key, &len)) {
      c.set_pos(begin + len);
      if ((s = c.Peek(&ch)) != Scan::kOk) return s;
      tag = learnt->Tag(position);
    } else {
      if ((s = c.Peek(&ch)) != Scan::kOk) return s;
      if (ch == '}') {
        c.set_pos(c.pos() + 1);
        return Scan::kOk;
      }
      if (position > 0 && (s = c.Expect(',')) != Scan::kOk) return s;
      if ((s = c.String(&key, arena)) != Scan::kOk) return s;
      if ((s = c.Expect(':')) != Scan::kOk) return s;
      if ((s = c.Peek(&ch)) != Scan::kOk) return s;
      if (learnt != nullptr) {
        learnt->Learn(position, begin, key, c.pos());
        if (uint8_t* kept = learnt->Tag(position)) tag = kept;
      }
    }
    if constexpr (std::is_invocable_v<F&, std::string_view, char, uint8_t&>) {
      s = f(key, ch, *tag);
    } else {
      s = f(key, ch);
    }
    if (s != Scan::kOk) return s;
  }
}
template <typename F>
Scan ForEachMember(JsonCursor& c, std::deque<std::string>* arena, F&& f) {
  return ForEachMember(c, arena, nullptr, std::forward<F>(f));
}

// Calls f(key, value, is_string) for each scalar member of the object at the cursor ('{');
// members holding objects or arrays are skipped. Stops at the first scan that is not kOk.
template <typename F>
Scan ForEachScalarMember(JsonCursor& c, std::deque<std::string>* arena, F&& f) {
  return ForEachMember(c, arena, [&](std::string_view key, char first) {
    if (first == '{' || first == '[') return c.SkipValue();
    std::string_view value;
    bool is_string = false;
    Scan s = c.Scalar(&value, &is_string, arena);
    if (s == Scan::kOk) f(key, value, is_string);
    return s;
  });
}

}  // namespace gpuscope::import
