#include "import/common/json_stream_scan.h"

#include "import/common/json_cursor.h"

namespace gpuscope::import {

using base::IsJsonSpace;

void JsonSqueezer::Reset() { *this = JsonSqueezer(); }

size_t JsonSqueezer::Squeeze(char* buf, size_t len, size_t keep_below) {
  size_t w = scanned_;
  for (size_t r = scanned_; r < len; ++r) {
    const char c = buf[r];
    // The first whitespace byte after a number's or a literal's byte stays (JsonCursor::Atom's
    // bytes): whether another comes next is not known yet (it may be in the next refill), and
    // "10 1" must not become "101".
    if (!strings_.Step(c) && IsJsonSpace(c) && r >= keep_below &&
        !(w > 0 && IsAtomChar(buf[w - 1]))) {
      if (removed_ == 0) first_removed_at_ = w;
      ++removed_;
      continue;
    }
    buf[w++] = c;
  }
  scanned_ = w;
  return w;
}

void JsonValueSkipper::Start() { *this = JsonValueSkipper(); }

const char* JsonValueSkipper::Feed(const char* p, const char* end) {
  for (; p < end; ++p) {
    const char c = *p;
    switch (kind_) {
      case Kind::kNotStarted:
        if (IsJsonSpace(c)) continue;
        if (strings_.Step(c)) {
          kind_ = Kind::kString;
        } else if (c == '{' || c == '[') {
          kind_ = Kind::kNested;
          depth_ = 1;
        } else {
          kind_ = Kind::kScalar;
        }
        continue;
      case Kind::kString:
        strings_.Step(c);
        if (!strings_.in_string) return p + 1;
        continue;
      case Kind::kScalar:
        if (c == ',' || c == '}' || c == ']' || IsJsonSpace(c)) return p;
        continue;
      case Kind::kNested:
        if (strings_.Step(c)) continue;
        if (c == '{' || c == '[') {
          ++depth_;
        } else if ((c == '}' || c == ']') && --depth_ == 0) {
          return p + 1;
        }
        continue;
    }
  }
  return nullptr;
}

}  // namespace gpuscope::import
