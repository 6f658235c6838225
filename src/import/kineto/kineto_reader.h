#pragma once
// KinetoReader: walks a Kineto / Chrome-trace JSON file through a fixed-size window, item by
// item (one top-level key, or one element of "traceEvents"), handing events to a builder.
//
// Streaming: the window holds 256 KiB; an item that runs past its end is retried after the
// window is compacted and refilled. Memory therefore depends on the largest event, not on the
// file: whitespace between items is dropped before it is buffered, a top-level member nobody
// reads is skipped a window at a time (JsonValueSkipper), and an event larger than the window
// loses its whitespace (JsonSqueezer) before the window grows (by realloc, never holding two).
//
// Mapped files: a plain file is rather parsed in place, mapped whole (base::MappedFile): no
// copy into a window, no refill; the pages behind the reader are released as it goes.
//
// Parallel segments: a reader can start at any '{' believed to begin an event (mode
// kEventsArray) and stop when it reaches the next segment's start offset. If it reaches that
// offset exactly, the next segment's guess is proven right (kHandoff); if it steps over it,
// the guess was wrong (the '{' was inside a string or a nested value) and the reader simply
// carries on to the end, so the result is always the sequential one.
//
// Damaged events: an element of "traceEvents" that is not valid JSON (PyTorch writes some
// Python frame names with their quotes unescaped) is counted (kineto.invalid_event) and
// skipped: the reader looks for the next '}' followed by ',' and '{' (or by the ']' that ends
// the array) and goes on from there. Only a file that ends while it looks is an error.

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "base/byte_buffer.h"
#include "base/byte_source.h"
#include "base/mapped_file.h"
#include "import/common/json_stream_scan.h"
#include "import/kineto/kineto_builder.h"

namespace gpuscope::import::kineto {

struct TopLevelInfo {
  bool bare_array = false;
  bool has_schema_version = false;
  bool has_base_time = false;
  int64_t base_time_ns = 0;
  std::vector<model::Device> devices;
  std::map<std::string, std::string> properties;  // scalar top-level keys
  int32_t rank = -1, world_size = -1;             // "distributedInfo": {"rank", "world_size"}
};

class KinetoReader {
 public:
  enum class Mode { kTopLevel, kEventsArray };
  enum class Outcome {
    kDone,      // reached the end of the document
    kHandoff,   // stopped exactly at stop_at: the next segment's start is proven
    kArrayEnd,  // (kEventsArray) reached the ']' closing traceEvents; end_offset() is after it
    kError,     // invalid JSON, truncated file or read error: error() says which
  };

  // 256 KiB stays in a core's L2 cache while its events are parsed; 4 MiB did not (measured:
  // a 1 GB trace read ~8% faster).
  static constexpr size_t kDefaultWindow = 256 << 10;

  // `window`: the bytes read at a time (tests make it small to reach the oversize-item paths).
  KinetoReader(base::ByteSource* source, uint64_t start_offset, Mode mode, KinetoBuilder* builder,
               TopLevelInfo* top, uint64_t stop_at = std::numeric_limits<uint64_t>::max(),
               size_t window = kDefaultWindow);
  // Reads the mapped file in place (`mapped` outlives the reader; several readers may share it).
  KinetoReader(const base::MappedFile* mapped, uint64_t start_offset, Mode mode,
               KinetoBuilder* builder, TopLevelInfo* top,
               uint64_t stop_at = std::numeric_limits<uint64_t>::max());

  // The trace this reader fills will hold the events of `held_bytes` bytes of the file (a
  // segment's own, or the whole file's for the head that the others are appended to), and this
  // reader stops by `span_end`. Once a 32nd of its span is read (at least 1 MiB), every column
  // reserves room for its rate so far over `held_bytes`: the columns grow once, not by
  // doubling. Call before Run; a reader never told reserves nothing.
  void PlanColumns(uint64_t span_end, uint64_t held_bytes);
  Outcome Run();
  // After kHandoff on a top-level reader: continue after the events array at `offset`.
  void ResumeAfterEventsArray(uint64_t offset);

  uint64_t end_offset() const { return end_offset_; }
  const std::string& error() const { return error_; }
  bool in_events_array() const {
    return state_ == State::kEventsFirst || state_ == State::kEventsNext ||
           state_ == State::kResync;
  }
  bool resync_failed() const { return resync_failed_; }

 private:
  enum class State {
    kStart,
    kKeyFirst,
    kKeyNext,
    kSkipValue,
    kEventsFirst,
    kEventsNext,
    kResync,  // after a damaged event: looking for the next one
    kDone
  };

  Outcome RunSteps();  // Run, before the pages behind the reader are released
  // (Mapped file) hands back the pages before pos_ once at least `min_bytes` lie behind the
  // last release; a window reader holds nothing to hand back.
  void ReleaseBehind(uint64_t min_bytes) {
    if (mapped_ == nullptr || pos_ - released_ < min_bytes) return;
    mapped_->Release(released_, pos_);
    released_ = pos_;
  }
  Scan Step(JsonCursor& c, bool* finished, Outcome* outcome);
  Scan TopLevelKey(JsonCursor& c, bool first, bool* finished);
  Scan EventItem(JsonCursor& c, bool first, bool* finished, Outcome* outcome);
  Scan ReadDevices(JsonCursor& c);
  Scan ReadDistributedInfo(JsonCursor& c);
  Scan SkipValueStep(JsonCursor& c);
  // Counts the event at `offset` that `c` failed on and starts looking for the next one.
  Scan SkipInvalidEvent(JsonCursor& c, uint64_t offset);
  Scan ResyncStep(JsonCursor& c);
  bool Refill();  // false at the end of input or on a read error
  // The file offset of data_[index]: exact before the squeezed bytes of the item being read
  // and after them, approximate inside them (only error messages ask there).
  uint64_t FileOffsetAt(size_t index) const {
    const bool after_squeeze = squeezer_.removed() > 0 && index >= squeezer_.first_removed_at();
    return window_offset_ + index + (after_squeeze ? squeezer_.removed() : 0);
  }
  uint64_t OffsetOf(const char* p) const { return FileOffsetAt(static_cast<size_t>(p - data_)); }

  base::ByteSource* source_;
  Mode mode_;
  KinetoBuilder* builder_;
  TopLevelInfo* top_;
  uint64_t stop_at_;
  State state_;
  bool events_in_object_ = true;  // traceEvents is inside a top-level object (else bare array)

  base::ByteBuffer buf_;  // the window (not used on a mapped file)
  const char* data_;      // the bytes read: buf_ or the whole mapped file
  const base::MappedFile* mapped_ = nullptr;
  uint64_t released_ = 0;   // (mapped) the pages before this offset are handed back
  size_t len_ = 0;          // valid bytes at data_
  size_t pos_ = 0;          // next unread byte
  uint64_t window_offset_;  // file offset of data_[0]
  size_t margin_;           // MarginOf(window) in kineto_reader.cc
  bool eof_ = false;
  bool read_error_ = false;
  bool resync_failed_ = false;
  uint64_t end_offset_ = 0;
  uint64_t span_start_ = 0;  // the file offset this reader started at
  uint64_t reserve_at_ = std::numeric_limits<uint64_t>::max();  // PlanColumns: when to reserve
  uint64_t held_bytes_ = 0;                                     // PlanColumns: what for
  std::string error_;
  std::string invalid_event_;  // what was wrong with the damaged event being skipped
  std::deque<std::string> arena_;
  EventPatterns learnt_;      // how this reader's events are spelt, as far as seen
  JsonSqueezer squeezer_;     // the item at buf_[0] when it outgrows the window
  JsonValueSkipper skipper_;  // State::kSkipValue
};

}  // namespace gpuscope::import::kineto
