#include "import/kineto/kineto_reader.h"

#include <algorithm>
#include <cstring>

#include "base/json_bytes.h"
#include "base/numbers.h"

namespace gpuscope::import::kineto {
namespace {
// The margin (64 KiB in the default window) is three things: the least room a refill reads
// into; an item's first bytes, never squeezed, so that its start offset (segment hand-offs
// compare it) and the offsets of errors near it stay exact; and the length past which a
// top-level scalar is nobody's property, skipped instead of buffered.
size_t MarginOf(size_t window) { return std::min<size_t>(64 << 10, window / 4); }

// A mapped reader hands back the pages behind it each time it has read this much: fewer
// madvise calls than events by far, and a few MiB resident per reader.
constexpr uint64_t kReleaseStep = 8 << 20;
}  // namespace

KinetoReader::KinetoReader(base::ByteSource* source, uint64_t start_offset, Mode mode,
                           KinetoBuilder* builder, TopLevelInfo* top, uint64_t stop_at,
                           size_t window)
    : source_(source),
      mode_(mode),
      builder_(builder),
      top_(top),
      stop_at_(stop_at),
      state_(mode == Mode::kTopLevel ? State::kStart : State::kEventsFirst),
      window_offset_(start_offset),
      margin_(MarginOf(window)),
      span_start_(start_offset) {
  buf_.Resize(window + kJsonPadding);
  data_ = buf_.data();
  std::memset(buf_.data(), 0, kJsonPadding);
  if (start_offset > 0) source_->Seek(start_offset);
}

KinetoReader::KinetoReader(const base::MappedFile* mapped, uint64_t start_offset, Mode mode,
                           KinetoBuilder* builder, TopLevelInfo* top, uint64_t stop_at)
    : KinetoReader(nullptr, 0, mode, builder, top, stop_at, 0) {
  data_ = mapped->data();
  mapped_ = mapped;
  len_ = static_cast<size_t>(mapped->size());
  pos_ = static_cast<size_t>(start_offset);
  released_ = start_offset;
  span_start_ = start_offset;
  margin_ = MarginOf(kDefaultWindow);
  eof_ = true;
}

void KinetoReader::ResumeAfterEventsArray(uint64_t offset) {
  state_ = events_in_object_ ? State::kKeyNext : State::kDone;
  stop_at_ = std::numeric_limits<uint64_t>::max();
  if (mapped_ != nullptr) {
    pos_ = static_cast<size_t>(offset);
    released_ = offset;
    return;
  }
  source_->Seek(offset);
  window_offset_ = offset;
  len_ = pos_ = 0;
  squeezer_.Reset();
  eof_ = false;
  std::memset(buf_.data(), 0, kJsonPadding);
}

bool KinetoReader::Refill() {
  if (eof_ || read_error_) return false;  // always so on a mapped file: it is all there
  // Keep the unfinished item: move it to the front of the window. pos_ only moves past whole
  // items, so an item squeezed before is behind it: its removed bytes count in the offset.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    window_offset_ = FileOffsetAt(pos_);
    squeezer_.Reset();
    len_ -= pos_;
    pos_ = 0;
    std::memset(buf_.data() + len_, 0, kJsonPadding);
  }
  if (len_ + kJsonPadding + margin_ > buf_.size()) {
    // One item fills the window: squeeze its whitespace out, and grow only if that was not enough.
    len_ = squeezer_.Squeeze(buf_.data(), len_, margin_);
    std::memset(buf_.data() + len_, 0, kJsonPadding);
    if (len_ + kJsonPadding + margin_ > buf_.size()) buf_.Resize(buf_.size() * 2);
    data_ = buf_.data();
  }
  size_t room = buf_.size() - kJsonPadding - len_;
  long long n = source_->Read(buf_.data() + len_, room);
  if (n < 0) {
    read_error_ = true;
    error_ = source_->error();
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  len_ += static_cast<size_t>(n);
  std::memset(buf_.data() + len_, 0, kJsonPadding);
  return true;
}

void KinetoReader::PlanColumns(uint64_t span_end, uint64_t held_bytes) {
  if (span_end <= span_start_ || held_bytes == 0) return;
  constexpr uint64_t kMinRead = 1 << 20;  // fewer bytes say too little of the rate
  reserve_at_ = span_start_ + std::max(kMinRead, (span_end - span_start_) / 32);
  held_bytes_ = held_bytes;
}

KinetoReader::Outcome KinetoReader::Run() {
  const Outcome outcome = RunSteps();
  // What is behind the reader is no longer needed (a head that resumes after the events array
  // reads on from there): not kept resident while the segments merge.
  ReleaseBehind(1);
  return outcome;
}

KinetoReader::Outcome KinetoReader::RunSteps() {
  while (true) {
    JsonCursor c(data_ + pos_, data_ + len_);
    bool finished = false;
    Outcome outcome = Outcome::kDone;
    Scan s = Step(c, &finished, &outcome);
    if (s == Scan::kOk) {
      pos_ = static_cast<size_t>(c.pos() - data_);
      ReleaseBehind(kReleaseStep);
      if (finished) return outcome;
      continue;
    }
    if (s == Scan::kError) {
      error_ = "invalid JSON at byte " + std::to_string(OffsetOf(c.error_at())) + " (" +
               c.error_what() + ")";
      return Outcome::kError;
    }
    // kNeedMore: the item runs past the window. Whitespace before it is dropped first (pos_ is
    // always between items, never inside one): a run of whitespace costs no memory.
    while (pos_ < len_ && base::IsJsonSpace(data_[pos_])) ++pos_;
    if (Refill()) continue;
    if (read_error_) {
      error_ = "read failed at byte " + std::to_string(FileOffsetAt(len_)) + " (" + error_ + ")";
      return Outcome::kError;
    }
    // End of input. Only trailing whitespace is fine, and only once the document is complete.
    const char* p = data_ + pos_;
    while (p < data_ + len_ && base::IsJsonSpace(*p)) ++p;
    if (state_ == State::kDone && p == data_ + len_) return Outcome::kDone;
    if (state_ == State::kResync) {
      error_ = invalid_event_ + ", and no event after it could be read";
      return Outcome::kError;
    }
    if (state_ == State::kStart && p == data_ + len_) {
      error_ = "the file is empty";
      return Outcome::kError;
    }
    error_ = std::string("the file ends early at byte ") + std::to_string(FileOffsetAt(len_)) +
             (in_events_array() ? ", inside \"traceEvents\" (truncated?)" : " (truncated?)");
    return Outcome::kError;
  }
}

Scan KinetoReader::Step(JsonCursor& c, bool* finished, Outcome* outcome) {
  switch (state_) {
    case State::kStart: {
      // Skip a UTF-8 byte order mark.
      if (len_ - pos_ >= 3 && std::memcmp(c.pos(), "\xEF\xBB\xBF", 3) == 0) c.set_pos(c.pos() + 3);
      char ch;
      Scan s = c.Peek(&ch);
      if (s != Scan::kOk) return s;
      c.set_pos(c.pos() + 1);
      if (ch == '[') {
        top_->bare_array = true;
        events_in_object_ = false;
        state_ = State::kEventsFirst;
        return Scan::kOk;
      }
      if (ch == '{') {
        state_ = State::kKeyFirst;
        return Scan::kOk;
      }
      c.set_pos(c.pos() - 1);
      return c.Expect('{');
    }
    case State::kKeyFirst:
    case State::kKeyNext:
      return TopLevelKey(c, state_ == State::kKeyFirst, finished);
    case State::kSkipValue:
      return SkipValueStep(c);
    case State::kEventsFirst:
    case State::kEventsNext:
      return EventItem(c, state_ == State::kEventsFirst, finished, outcome);
    case State::kResync:
      return ResyncStep(c);
    case State::kDone: {
      char ch;
      Scan s = c.Peek(&ch);
      if (s != Scan::kOk) return s;
      return c.Unexpected("data after the end of the JSON document");
    }
  }
  return Scan::kError;
}

Scan KinetoReader::TopLevelKey(JsonCursor& c, bool first, bool* finished) {
  char ch;
  Scan s = c.Peek(&ch);
  if (s != Scan::kOk) return s;
  if (ch == '}') {
    c.set_pos(c.pos() + 1);
    state_ = State::kDone;
    *finished = false;
    return Scan::kOk;
  }
  if (!first && (s = c.Expect(',')) != Scan::kOk) return s;
  std::string_view key;
  arena_.clear();
  if ((s = c.String(&key, &arena_)) != Scan::kOk) return s;
  if ((s = c.Expect(':')) != Scan::kOk) return s;
  if (key == "traceEvents") {
    if ((s = c.Expect('[')) != Scan::kOk) return s;
    state_ = State::kEventsFirst;
    return Scan::kOk;
  }
  if (key == "deviceProperties" || key == "computeProperties") {
    if ((s = ReadDevices(c)) != Scan::kOk) return s;
    state_ = State::kKeyNext;
    return Scan::kOk;
  }
  if ((s = c.Peek(&ch)) != Scan::kOk) return s;
  if (key == "distributedInfo" && ch == '{') {
    if ((s = ReadDistributedInfo(c)) != Scan::kOk) return s;
    state_ = State::kKeyNext;
    return Scan::kOk;
  }
  if (ch == '{' || ch == '[') {  // a member nobody reads: never buffered whole
    skipper_.Start();
    state_ = State::kSkipValue;
    return Scan::kOk;
  }
  std::string_view value;
  bool is_string = false;
  const char* value_start = c.pos();
  s = c.Scalar(&value, &is_string, &arena_);
  if (s == Scan::kNeedMore && static_cast<size_t>(data_ + len_ - value_start) >= margin_) {
    c.set_pos(value_start);
    skipper_.Start();
    state_ = State::kSkipValue;
    return Scan::kOk;
  }
  if (s != Scan::kOk) return s;
  if (key == "schemaVersion") top_->has_schema_version = true;
  if (key == "baseTimeNanoseconds") {
    if (auto v = base::ParseInt64(value)) {
      top_->has_base_time = true;
      top_->base_time_ns = *v;
    }
  }
  top_->properties[std::string(key)] = std::string(value.substr(0, 256));
  state_ = State::kKeyNext;
  return Scan::kOk;
}

// One window's worth of a skipped value: consumed without being kept; the state stays until
// the value ends (the end of input inside it is a truncated file).
Scan KinetoReader::SkipValueStep(JsonCursor& c) {
  const char* end = data_ + len_;
  if (c.pos() >= end) return Scan::kNeedMore;
  const char* after = skipper_.Feed(c.pos(), end);
  if (after == nullptr) {
    c.set_pos(end);
    return Scan::kOk;
  }
  c.set_pos(after);
  state_ = State::kKeyNext;
  return Scan::kOk;
}

Scan KinetoReader::EventItem(JsonCursor& c, bool first, bool* finished, Outcome* outcome) {
  char ch;
  Scan s = c.Peek(&ch);
  if (s != Scan::kOk) return s;
  if (ch == ']') {
    c.set_pos(c.pos() + 1);
    if (mode_ == Mode::kEventsArray) {
      end_offset_ = OffsetOf(c.pos());
      *finished = true;
      *outcome = Outcome::kArrayEnd;
      return Scan::kOk;
    }
    state_ = events_in_object_ ? State::kKeyNext : State::kDone;
    return Scan::kOk;
  }
  if (!first) {
    if ((s = c.Expect(',')) != Scan::kOk)
      return s == Scan::kError ? SkipInvalidEvent(c, OffsetOf(c.pos())) : s;
    if ((s = c.Peek(&ch)) != Scan::kOk) return s;
    if (ch == ']') {  // a trailing comma: lenient, as Chrome's viewer is
      return Scan::kOk;
    }
  }
  const uint64_t offset = OffsetOf(c.pos());
  if (offset >= stop_at_) {
    if (offset == stop_at_) {
      *finished = true;
      *outcome = Outcome::kHandoff;
      state_ = State::kEventsFirst;  // positioned at an event: no comma before it
      return Scan::kOk;
    }
    // Stepped over the next segment's guess: it was not an event start. Carry on alone.
    resync_failed_ = true;
    stop_at_ = std::numeric_limits<uint64_t>::max();
  }
  KinetoEvent ev;
  arena_.clear();
  if ((s = ParseKinetoEvent(c, &ev, &arena_, &learnt_)) != Scan::kOk)
    return s == Scan::kError ? SkipInvalidEvent(c, offset) : s;
  builder_->Add(ev, offset);
  if (offset >= reserve_at_) {
    reserve_at_ = std::numeric_limits<uint64_t>::max();
    // A fifth more than the rate so far says: the head of the 1 GB benchmark trace reads its
    // first MiBs 13% slower in events than the whole, and a column one row short doubles.
    if (held_bytes_ > offset - span_start_) {
      builder_->ReserveScaled(1.2 * static_cast<double>(held_bytes_) /
                              static_cast<double>(offset - span_start_));
    }
  }
  state_ = State::kEventsNext;
  return Scan::kOk;
}

Scan KinetoReader::SkipInvalidEvent(JsonCursor& c, uint64_t offset) {
  invalid_event_ = "invalid JSON at byte " + std::to_string(OffsetOf(c.error_at())) + " (" +
                   c.error_what() + ")";
  builder_->AddInvalid(offset, invalid_event_);
  c.set_pos(c.error_at());
  state_ = State::kResync;
  return Scan::kOk;
}

// The next event after a damaged one: after a '}', either ',' and '{' (an event starts there)
// or ']' followed by ',' or '}' (the end of "traceEvents" in its object). A '}' whose
// followers run past the window is kept for the refill; everything before it is consumed.
Scan KinetoReader::ResyncStep(JsonCursor& c) {
  const char* const end = data_ + len_;
  auto skip_space = [end](const char* q) {
    while (q < end && base::IsJsonSpace(*q)) ++q;
    return q;
  };
  if (c.pos() >= end) return Scan::kNeedMore;
  for (const char* p = c.pos(); p < end;) {
    const char* close = static_cast<const char*>(std::memchr(p, '}', static_cast<size_t>(end - p)));
    if (close == nullptr) break;
    const char* q = skip_space(close + 1);
    const char* r = q < end && (*q == ',' || *q == ']') ? skip_space(q + 1) : q;
    if (r >= end) {  // undecided until the window is refilled
      if (close == c.pos()) return Scan::kNeedMore;
      c.set_pos(close);
      return Scan::kOk;
    }
    if ((*q == ',' && *r == '{') || (*q == ']' && (*r == ',' || *r == '}'))) {
      c.set_pos(*q == ',' ? r : q);
      state_ = *q == ',' ? State::kEventsFirst : State::kEventsNext;
      return Scan::kOk;
    }
    p = close + 1;
  }
  c.set_pos(end);
  return Scan::kOk;
}

}  // namespace gpuscope::import::kineto
