#include "model/trace.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "base/numbers.h"

namespace gpuscope::model {

TrackId Trace::InternTrack(TrackKind kind, std::string_view pid_text, std::string_view tid_text) {
  std::string key;
  key.reserve(pid_text.size() + tid_text.size() + 3);
  key.push_back(static_cast<char>('0' + static_cast<int>(kind)));
  key.append(pid_text);
  key.push_back('\x1f');
  key.append(tid_text);
  auto it = track_index_.find(key);
  if (it != track_index_.end()) return it->second;
  Track t;
  t.kind = kind;
  t.pid_text = strings.Intern(pid_text);
  t.tid_text = strings.Intern(tid_text);
  if (auto v = base::ParseInt64(pid_text)) t.pid = *v;
  if (auto v = base::ParseInt64(tid_text)) t.tid = *v;
  if (kind == TrackKind::kGpuStream) t.device = static_cast<int32_t>(t.pid);
  TrackId id = static_cast<TrackId>(tracks.size());
  tracks.push_back(t);
  track_index_.emplace(std::move(key), id);
  return id;
}

namespace {
template <typename Table>
void Widen(const Table& t, int64_t* lo, int64_t* hi, bool skip_zero) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (skip_zero && t.start_ns[i] == 0 && t.dur_ns[i] == 0) continue;
    *lo = std::min(*lo, t.start_ns[i]);
    *hi = std::max(*hi, t.start_ns[i] + t.dur_ns[i]);
  }
}
}  // namespace

std::pair<int64_t, int64_t> Trace::TimeSpan() const {
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  // Events clamped to ts 0 by Kineto carry no real time: leave them out of the span.
  bool skip_zero = meta.clamped_zero_events > 0;
  Widen(kernels, &lo, &hi, skip_zero);
  Widen(memops, &lo, &hi, skip_zero);
  Widen(api, &lo, &hi, skip_zero);
  Widen(cpu, &lo, &hi, skip_zero);
  Widen(python, &lo, &hi, skip_zero);
  Widen(gpu_ranges, &lo, &hi, skip_zero);
  if (lo > hi) return {0, 0};
  return {lo, hi};
}

uint64_t Trace::EventCount() const {
  return kernels.size() + memops.size() + api.size() + cpu.size() + python.size() +
         gpu_ranges.size() + counters.size() + instants.size() + memory.size();
}

size_t Trace::MemoryBytes() {
  size_t bytes = strings.bytes();
  auto add = [&bytes](auto& col) { bytes += col.capacity() * sizeof(col[0]); };
  kernels.ForEachColumn(add);
  memops.ForEachColumn(add);
  api.ForEachColumn(add);
  cpu.ForEachColumn(add);
  python.ForEachColumn(add);
  gpu_ranges.ForEachColumn(add);
  counters.ForEachColumn(add);
  instants.ForEachColumn(add);
  memory.ForEachColumn(add);
  return bytes;
}

namespace {

// One table's (start, end) spans in start order: the table itself where it is sorted by start,
// as every table is once linked (SortTablesByTime), else a sorted copy.
class SpansByStart {
 public:
  explicit SpansByStart(const SliceColumns& table) : table_(table) {
    for (size_t i = 1; i < table.size(); ++i) {
      if (table.start_ns[i] >= table.start_ns[i - 1]) continue;
      copy_.reserve(table.size());
      for (size_t k = 0; k < table.size(); ++k)
        copy_.emplace_back(table.start_ns[k], table.end_ns(k));
      std::sort(copy_.begin(), copy_.end());
      break;
    }
  }
  bool done() const { return i_ >= table_.size(); }
  int64_t start() const { return copy_.empty() ? table_.start_ns[i_] : copy_[i_].first; }
  int64_t end() const { return copy_.empty() ? table_.end_ns(i_) : copy_[i_].second; }
  void next() { ++i_; }

 private:
  const SliceColumns& table_;
  std::vector<std::pair<int64_t, int64_t>> copy_;
  size_t i_ = 0;
};

}  // namespace

EventGap LargestEventGap(const Trace& t) {
  // The kernels, copies and calls merged by start (the gaps of their union do not depend on
  // the order of equal starts): one pass, not a sort of every event (36 M instructions of
  // `analyze` on the 100 MB trace).
  SpansByStart tables[] = {SpansByStart(t.kernels), SpansByStart(t.memops), SpansByStart(t.api)};
  auto next = [&tables]() -> SpansByStart* {
    SpansByStart* first = nullptr;
    for (SpansByStart& s : tables)
      if (!s.done() && (first == nullptr || s.start() < first->start())) first = &s;
    return first;
  };
  EventGap g;
  SpansByStart* s = next();
  if (s == nullptr) return g;
  constexpr int64_t kMinute = 60'000'000'000;
  int64_t reach = s->end(), cluster = s->start();
  g.first_ns = s->start();
  s->next();
  while ((s = next()) != nullptr) {
    int64_t gap = s->start() - reach;
    if (gap > g.gap()) g.from_ns = reach, g.to_ns = s->start();
    if (gap >= kMinute) g.active_ns += reach - cluster, cluster = s->start();
    reach = std::max(reach, s->end());
    s->next();
  }
  g.active_ns += reach - cluster;
  g.last_ns = reach;
  return g;
}

}  // namespace gpuscope::model
