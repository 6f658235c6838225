#pragma once
// How gpuscope's .rpd keeps Python frames: packed, a run of consecutive frames of one thread per
// ext_gpuscope_python row (format/rpd_ext.h), instead of two rows per frame (a UserMarker in
// rocpd_api and its ext_gpuscope_api kind). A profile holds several Python frames per op; as
// rows they were most of the time `convert -o x.rpd` spent in SQLite (bench/RESULTS.md).
//
// A row's `data` is, per frame, five LEB128 varints of zigzag-encoded integers:
//   start - the previous frame's start (the run's first: start itself), dur, the name's
//   rocpd_string id, python_id - the previous frame's python_id (first: python_id itself),
//   python_parent_id - python_id.
// Readers check every varint against the end of the data and the row's `frames` count.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/varint.h"

namespace gpuscope::format::rpd_python {

// At most this many frames in one row: rows stay far below SQLite's and the reader's value
// size limits (a frame takes at most 50 bytes).
inline constexpr int64_t kFramesPerRow = 16384;

struct Frame {
  int64_t start_ns = 0, dur_ns = 0, name_id = 0, python_id = -1, parent_id = -1;
};

// Differences wrap (unsigned) so that no input overflows; decoding wraps them back.
inline int64_t Minus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t Plus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// Appends `f` to a row's data; `prev` is the row's previous frame (nullptr for its first).
inline void Append(std::string& out, const Frame* prev, const Frame& f) {
  using base::PutVarint, base::ZigZag;
  PutVarint(out, ZigZag(prev ? Minus(f.start_ns, prev->start_ns) : f.start_ns));
  PutVarint(out, ZigZag(f.dur_ns));
  PutVarint(out, ZigZag(f.name_id));
  PutVarint(out, ZigZag(prev ? Minus(f.python_id, prev->python_id) : f.python_id));
  PutVarint(out, ZigZag(Minus(f.parent_id, f.python_id)));
}

// Reads a row's frames one by one; Next() is false at the end of the data or on damage
// (damaged() then says which).
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool Next(Frame* f) {
    if (at_ == data_.size()) return false;
    uint64_t v[5];
    for (uint64_t& x : v) {
      if (!base::GetVarint(data_, &at_, &x)) {
        damaged_ = true;
        return false;
      }
    }
    using base::UnZigZag;
    f->start_ns = first_ ? UnZigZag(v[0]) : Plus(prev_.start_ns, UnZigZag(v[0]));
    f->dur_ns = UnZigZag(v[1]);
    f->name_id = UnZigZag(v[2]);
    f->python_id = first_ ? UnZigZag(v[3]) : Plus(prev_.python_id, UnZigZag(v[3]));
    f->parent_id = Plus(f->python_id, UnZigZag(v[4]));
    prev_ = *f;
    first_ = false;
    return true;
  }
  bool damaged() const { return damaged_; }

 private:
  std::string_view data_;
  size_t at_ = 0;
  Frame prev_;
  bool first_ = true;
  bool damaged_ = false;
};

}  // namespace gpuscope::format::rpd_python
