#pragma once
// Byte-at-a-time JSON scans that carry their state across a reader's window refills, so that
// what a reader does not keep costs it no memory:
// - JsonSqueezer removes whitespace outside strings from an unfinished item in place (the item
//   means the same without it), before the window has to grow to hold the rest of the item.
//   After a number or a literal it leaves one space, so that damage stays damage ("10 1" is
//   not "101").
// - JsonValueSkipper consumes one value whose bytes are not kept (a top-level member nobody
//   reads), however long it is, a window at a time.
// Neither validates: the bytes they see are either parsed later by JsonCursor (squeezed) or
// ignored (skipped); a malformed skipped value ends where its brackets balance or at the end of
// the input, which the reader reports as a truncated file.

#include <cstddef>
#include <cstdint>

#include "base/json_bytes.h"

namespace gpuscope::import {

class JsonSqueezer {
 public:
  // Forget the previous item: the next Squeeze starts at byte 0 of a new item, outside strings.
  void Reset();
  // Squeezes buf[0, len) in place, resuming where the last call stopped; bytes before
  // `keep_below` are scanned but never removed (the caller needs their offsets exact). Returns
  // the new length.
  size_t Squeeze(char* buf, size_t len, size_t keep_below);
  // Bytes removed since Reset, and the index of the first removed byte (bytes before it are
  // where they were read; only meaningful when removed() > 0).
  uint64_t removed() const { return removed_; }
  size_t first_removed_at() const { return first_removed_at_; }

 private:
  size_t scanned_ = 0;  // buf[0, scanned_) is squeezed already
  uint64_t removed_ = 0;
  size_t first_removed_at_ = 0;
  base::JsonStringTracker strings_;
};

class JsonValueSkipper {
 public:
  // Starts a value whose first byte (after any whitespace) is the next one fed.
  void Start();
  // Consumes bytes of the value from [p, end). Returns the position just after the value when
  // it ends inside the range (a number or literal ends before its delimiter, which is not
  // consumed), else nullptr: every byte was consumed and the value goes on.
  const char* Feed(const char* p, const char* end);

 private:
  enum class Kind { kNotStarted, kString, kNested, kScalar };
  Kind kind_ = Kind::kNotStarted;
  uint64_t depth_ = 0;  // open brackets in a nested value
  base::JsonStringTracker strings_;
};

}  // namespace gpuscope::import
