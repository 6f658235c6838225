#include "import/common/json_stream_scan.h"

namespace gpuscope::import {

using base::IsJsonSpace;

void JsonSqueezer::Reset() { *this = JsonSqueezer(); }

namespace {
// A byte of a number or a literal (true, false, null): two of them with only whitespace between
// are two tokens, which the squeeze must not join into one ("10 1" is not "101").
bool IsScalarByte(char c) {
  switch (c) {
    case '{':
    case '}':
    case '[':
    case ']':
    case ',':
    case ':':
    case '"':
      return false;
    default:
      return !IsJsonSpace(c);
  }
}
}  // namespace

size_t JsonSqueezer::Squeeze(char* buf, size_t len, size_t keep_below) {
  size_t w = scanned_;
  for (size_t r = scanned_; r < len; ++r) {
    const char c = buf[r];
    // The first whitespace byte after a scalar stays: whether a scalar comes next is not known
    // yet (it may be in the next refill), and "10 1" must not become "101".
    if (!strings_.Step(c) && IsJsonSpace(c) && r >= keep_below &&
        !(w > 0 && IsScalarByte(buf[w - 1]))) {
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
