#pragma once
// JsonWalker: recursive-descent walking over a whole JSON document held in memory (followed by
// kJsonPadding NUL bytes), for nested formats that are not one flat event array (rocprofv3
// JSON). No DOM: the caller's callbacks consume each value as it is reached, so memory is the
// document plus what the callbacks keep.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "base/numbers.h"
#include "import/common/json_cursor.h"

namespace gpuscope::import {

class JsonWalker {
 public:
  // `doc` must be followed in memory by kJsonPadding NUL bytes.
  JsonWalker(const char* begin, const char* end) : begin_(begin), cur_(begin, end) {}

  // Calls member(key) for each member, with the cursor at the value; member must consume
  // the value (read it or Skip()) and return false to stop on an error.
  template <typename F>
  bool Object(F&& member) {
    return Items('{', '}', [&] {
      std::string_view key;
      return Ok(cur_.String(&key, &arena_)) && Ok(cur_.Expect(':')) && member(key);
    });
  }

  // Calls element() for each element; element must consume it.
  template <typename F>
  bool Array(F&& element) {
    return Items('[', ']', element);
  }

  bool Skip() { return Ok(cur_.SkipValue()); }
  bool Consume(char c) { return Ok(cur_.Expect(c)); }
  // Integers (a non-integer or null value reads as `fallback`, still consumed).
  bool Int(int64_t* out, int64_t fallback = 0) {
    std::string_view text;
    bool is_string = false;
    if (!Ok(cur_.Scalar(&text, &is_string, &arena_))) return false;
    auto v = base::ParseInt64(text);
    *out = v ? *v : fallback;
    return true;
  }
  bool Str(std::string* out) {
    std::string_view text;
    bool is_string = false;
    if (!Ok(cur_.Scalar(&text, &is_string, &arena_))) return false;
    out->assign(text);
    return true;
  }
  // {"handle": N} objects of rocprofiler-sdk.
  bool Handle(int64_t* out) {
    *out = 0;
    return Object([&](std::string_view k) { return k == "handle" ? Int(out) : Skip(); });
  }
  bool Peek(char* c) { return Ok(cur_.Peek(c)); }
  // Frees decoded (escaped) strings; call between records, when no view is held.
  void ClearArena() { arena_.clear(); }

  // Byte offset of the failure and what was expected, for the error line.
  uint64_t error_offset() const { return error_offset_; }
  const std::string& error() const { return error_; }

 private:
  // `open`, then items separated by commas, each read by item() (false stops), then `close`.
  template <typename F>
  bool Items(char open, char close, F&& item) {
    if (!Ok(cur_.Expect(open))) return false;
    char c = 0;
    if (!Ok(cur_.Peek(&c))) return false;
    if (c == close) return Ok(cur_.Expect(close));
    for (;;) {
      if (!item()) return false;
      if (!Ok(cur_.Peek(&c))) return false;
      if (c == close) return Ok(cur_.Expect(close));
      if (!Ok(cur_.Expect(','))) return false;
    }
  }

  bool Ok(Scan s) {
    if (s == Scan::kOk) return true;
    if (error_.empty()) {
      const char* at = cur_.error_at() ? cur_.error_at() : cur_.pos();
      error_offset_ = static_cast<uint64_t>(at - begin_);
      error_ = s == Scan::kNeedMore ? "the file ends in the middle of a value (truncated?)"
                                    : std::string("invalid JSON: ") + cur_.error_what();
    }
    return false;
  }

  const char* begin_;
  JsonCursor cur_;
  std::deque<std::string> arena_;
  uint64_t error_offset_ = 0;
  std::string error_;
};

}  // namespace gpuscope::import
