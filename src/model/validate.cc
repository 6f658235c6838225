#include "model/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/shown_name.h"
#include "base/text.h"
#include "model/device_values.h"

namespace gpuscope::model {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kMax : kMin;
  return r;
}

// Why an event is dropped, checked in this order.
enum class Verdict : uint8_t { kKeep, kMissingTime, kEndBeforeStart, kOutOfRange };

Verdict CheckTimes(int64_t start, int64_t dur) {
  if (start == kUnknownTime || dur == kUnknownTime) return Verdict::kMissingTime;
  if (dur < 0) return Verdict::kEndBeforeStart;
  int64_t end = 0;
  if (__builtin_add_overflow(start, dur, &end)) return Verdict::kOutOfRange;
  return Verdict::kKeep;
}

std::string Ns(int64_t v) { return v == kUnknownTime ? "unknown" : std::to_string(v) + " ns"; }

// Keeps the rows whose mask byte is 1, in order, in every column of `table`.
template <typename Table>
void Compact(Table& table, const std::vector<uint8_t>& keep) {
  table.ForEachColumn([&keep](auto& column) {
    size_t w = 0;
    for (size_t i = 0; i < column.size(); ++i) {
      if (keep[i]) column[w++] = column[i];
    }
    column.resize(w);
  });
}

// Runs the checks over one trace: first the values an event holds on its own, then the clock
// range, which needs the bulk of the valid events first.
class Validator {
 public:
  Validator(Trace& t, const ValidationOptions& o) : t_(t), o_(o) {}

  ValidationResult Run() {
    // Kineto clamps times before its base to 0: those events are already counted and left out
    // of spans (TraceMetadata::clamped_zero_events); they are not wild values.
    skip_clamped_ = t_.meta.clamped_zero_events > 0;
    FirstPass();
    FindRange();
    Slices(t_.kernels, "kernel");
    Slices(t_.memops, "memory operation");
    Slices(t_.api, "API call");
    Slices(t_.cpu, "CPU range");
    Slices(t_.python, "Python frame");
    Slices(t_.gpu_ranges, "GPU range");
    Points(t_.counters, "counter sample");
    Points(t_.instants, "instant");
    Points(t_.memory, "memory event");
    Sizes();
    Bandwidths();
    if (gpu_dropped_) PruneDevices();
    Names();
    CheckDeviceValues(t_);
    result_.mostly_invalid =
        result_.checked > 0 && static_cast<double>(result_.dropped) >
                                   o_.max_invalid_fraction * static_cast<double>(result_.checked);
    return result_;
  }

 private:
  // Collects the starts of events whose own values are fine (a strided sample of at most 1 M):
  // the plausible clock range comes from them.
  void FirstPass() {
    uint64_t n = t_.kernels.size() + t_.memops.size() + t_.api.size() + t_.cpu.size() +
                 t_.python.size() + t_.gpu_ranges.size() + t_.counters.size() + t_.instants.size() +
                 t_.memory.size();
    stride_ = std::max<uint64_t>(1, n / (1 << 20));
    // Grown by doubling, its copies took 12% of `stats`' page faults on the 100 MB trace.
    sample_.reserve(n / stride_ + 1);
    auto slices = [this](const SliceColumns& s) {
      for (size_t i = 0; i < s.size(); ++i) {
        if (CheckTimes(s.start_ns[i], s.dur_ns[i]) != Verdict::kKeep) continue;
        if (Clamped(s.start_ns[i], s.dur_ns[i])) continue;
        if (seen_++ % stride_ == 0) sample_.push_back(s.start_ns[i]);
      }
    };
    slices(t_.kernels), slices(t_.memops), slices(t_.api), slices(t_.cpu), slices(t_.python);
    slices(t_.gpu_ranges);
    auto points = [this](const std::vector<int64_t>& ts) {
      for (int64_t v : ts) {
        if (v != kUnknownTime && seen_++ % stride_ == 0) sample_.push_back(v);
      }
    };
    points(t_.counters.ts_ns), points(t_.instants.ts_ns), points(t_.memory.ts_ns);
  }

  bool Clamped(int64_t start, int64_t dur) const { return skip_clamped_ && start == 0 && dur == 0; }

  void FindRange() {
    if (sample_.empty()) return;  // nothing timed: the bounds stay +-2^62
    // Few events: the middle half is the core (a 1% quantile of ten values is the extreme).
    bool few = sample_.size() < 200;
    double ql = few ? 0.25 : o_.core_low_quantile;
    double qh = few ? 0.75 : o_.core_high_quantile;
    auto at = [this](double q) {
      size_t k = static_cast<size_t>(q * static_cast<double>(sample_.size() - 1));
      std::nth_element(sample_.begin(), sample_.begin() + static_cast<ptrdiff_t>(k), sample_.end());
      return sample_[k];
    };
    int64_t core_lo = at(ql);
    int64_t core_hi = at(qh);
    int64_t width = SaturatingAdd(core_hi, -core_lo);
    int64_t widen = width > kMax / std::max<int64_t>(1, o_.widen_factor)
                        ? kMax
                        : std::max(width * o_.widen_factor, o_.widen_min_ns);
    // Never beyond +-2^62 ns (146 years from the clock's origin): the difference of any two
    // times then fits in int64, so no later subtraction can overflow.
    constexpr int64_t kLimit = int64_t{1} << 62;
    lo_ = std::max(SaturatingAdd(core_lo, -widen), -kLimit);
    hi_ = std::min(SaturatingAdd(core_hi, widen), kLimit);
    result_.range_lo = lo_;
    result_.range_hi = hi_;
  }

  template <typename Table>
  void Slices(Table& table, std::string_view what) {
    std::vector<uint8_t> keep(table.size(), 1);
    bool any_dropped = false;
    for (size_t i = 0; i < table.size(); ++i) {
      ++result_.checked;
      int64_t start = table.start_ns[i], dur = table.dur_ns[i];
      Verdict v = CheckTimes(start, dur);
      if (v == Verdict::kKeep && !Clamped(start, dur) &&
          (start < lo_ || start > hi_ || dur > static_cast<__int128>(hi_) - start)) {
        v = Verdict::kOutOfRange;
      }
      if (v == Verdict::kKeep) continue;
      keep[i] = 0;
      any_dropped = true;
      std::string name(t_.str(table.name[i]));
      if (name.size() > 60) name = name.substr(0, 57) + "...";
      Drop(v, std::string(what) + " '" + name + "': start " + Ns(start) + ", duration " + Ns(dur));
    }
    if (any_dropped) Compact(table, keep);
    if constexpr (!std::is_same_v<Table, ApiTable> && !std::is_same_v<Table, CpuRangeTable> &&
                  !std::is_same_v<Table, PythonFrameTable>) {
      gpu_dropped_ |= any_dropped;
    }
  }

  // A device that only dropped events named (a row of zeros names device 0) is not in the run.
  void PruneDevices() {
    std::set<int64_t> used;
    for (int16_t d : t_.kernels.device) used.insert(d);
    for (int16_t d : t_.memops.device) used.insert(d);
    for (TrackId tr : t_.gpu_ranges.track) used.insert(t_.tracks[tr].device);
    for (TrackId tr : t_.kernels.track) used.insert(t_.tracks[tr].device);
    for (TrackId tr : t_.memops.track) used.insert(t_.tracks[tr].device);
    std::erase_if(t_.devices, [&used](const Device& d) { return used.count(d.id) == 0; });
  }

  template <typename Table>
  void Points(Table& table, std::string_view what) {
    std::vector<uint8_t> keep(table.size(), 1);
    bool any_dropped = false;
    // Built only for a bad sample: a string per healthy one would cost more than the check.
    auto example = [&](size_t i) {
      if constexpr (requires { table.name; })
        return std::string(what) + " '" + std::string(t_.str(table.name[i])) + "' at " +
               Ns(table.ts_ns[i]);
      else
        return std::string(what) + " at " + Ns(table.ts_ns[i]);
    };
    for (size_t i = 0; i < table.size(); ++i) {
      ++result_.checked;
      int64_t ts = table.ts_ns[i];
      Verdict v = ts == kUnknownTime       ? Verdict::kMissingTime
                  : (ts < lo_ || ts > hi_) ? Verdict::kOutOfRange
                                           : Verdict::kKeep;
      if (v == Verdict::kKeep) {
        if constexpr (requires { table.allocated; }) {  // allocator events carry sizes
          if (!PossibleMemory(table, i)) {
            keep[i] = 0, any_dropped = true, ++result_.dropped;
            continue;
          }
        }
        if constexpr (requires { table.value; }) {  // counters carry a value
          if (!std::isfinite(table.value[i])) {
            keep[i] = 0, any_dropped = true, ++result_.dropped;
            t_.problems.Add(ProblemKind::kInvalidCounterValue,
                            example(i) + ": the value is not a finite number; dropped");
          }
        }
        continue;
      }
      keep[i] = 0;
      any_dropped = true;
      Drop(v, example(i));
    }
    if (any_dropped) Compact(table, keep);
  }

  // Sizes: -1 is "not recorded"; any other negative value, or a copy larger than 1 PiB (more
  // than any machine holds), is a damaged value, marked unknown.
  void Sizes() {
    constexpr int64_t kMaxBytes = int64_t{1} << 50;
    for (size_t i = 0; i < t_.memops.size(); ++i) {
      int64_t& b = t_.memops.bytes[i];
      if (b >= -1 && b <= kMaxBytes) continue;
      t_.problems.Add(
          b < 0 ? ProblemKind::kInvalidNegativeSize : ProblemKind::kInvalidImplausibleSize,
          "memory operation '" + std::string(t_.str(t_.memops.name[i])) +
              "': " + std::to_string(b) + " bytes; kept with the size unknown");
      b = -1;
    }
  }

  // An allocation, free or allocator total no device holds: larger than the device's memory
  // (when the trace says it), else than 2^48 bytes (256 TiB). Counted and false (dropped).
  bool PossibleMemory(const MemoryEventTable& m, size_t i) {
    int64_t limit = int64_t{1} << 48;
    for (const Device& d : t_.devices) {
      if (d.id == m.device[i] && m.device[i] >= 0 && d.total_memory > 0) limit = d.total_memory;
    }
    int64_t b = m.bytes[i] == kMin ? kMax : (m.bytes[i] < 0 ? -m.bytes[i] : m.bytes[i]);
    int64_t worst = std::max({b, m.allocated[i], m.reserved[i]});
    if (worst <= limit) return true;
    t_.problems.Add(ProblemKind::kImpossibleMemorySize,
                    "memory event at " + Ns(m.ts_ns[i]) + ": " + std::to_string(worst) +
                        " bytes, more than the " + std::to_string(limit) + " bytes " +
                        (limit == (int64_t{1} << 48) ? "any device holds" : "of its device") +
                        "; dropped");
    return false;
  }

  // A copy faster than any link or memory (100 TB/s over at least 1 MB): its bytes or its time
  // are wrong. Kept as read, counted.
  void Bandwidths() {
    constexpr double kMaxBytesPerNs = 100e3;  // 100 TB/s
    for (size_t i = 0; i < t_.memops.size(); ++i) {
      int64_t b = t_.memops.bytes[i], d = t_.memops.dur_ns[i];
      if (b < (1 << 20) || d <= 0 ||
          static_cast<double>(b) / static_cast<double>(d) <= kMaxBytesPerNs)
        continue;
      t_.problems.Add(ProblemKind::kImpossibleCopyBandwidth,
                      "memory operation '" + std::string(t_.str(t_.memops.name[i]).substr(0, 60)) +
                          "': " + std::to_string(b) + " bytes in " + Ns(d) + "; kept");
    }
  }

  // Names holding NUL or bytes that are not UTF-8 are kept as written (output escapes them) but
  // said: they come from a damaged file or a writer with the wrong encoding.
  void Names() {
    for (StringId id = 0; id < t_.strings.size(); ++id) {
      std::string_view name = t_.str(id);
      if (name.size() > base::kMaxShownName) {
        t_.problems.Add(ProblemKind::kInvalidNameLength,
                        "name '" + base::EscapeControl(name.substr(0, 40)) + "...' of " +
                            std::to_string(name.size()) + " bytes; cut where it is shown");
      }
      if (base::IsCleanUtf8(name)) {
        if (!base::HasControl(name)) continue;
        t_.problems.Add(ProblemKind::kInvalidNameControl,
                        "name '" + base::EscapeControl(name.substr(0, 60)) +
                            "' holds control characters; kept, shown escaped in text and CSV");
        continue;
      }
      std::string shown;
      for (char c : name.substr(0, 60)) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x80) {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02x", u);
          shown += hex;
        } else {
          shown += c;
        }
      }
      t_.problems.Add(ProblemKind::kInvalidNameEncoding,
                      "name '" + shown + "' holds a NUL or bytes that are not UTF-8; kept, " +
                          "shown with U+FFFD in JSON");
    }
  }

  void Drop(Verdict v, const std::string& example) {
    ++result_.dropped;
    ProblemKind kind = ProblemKind::kInvalidTimeOutOfRange;
    std::string text;
    switch (v) {
      case Verdict::kMissingTime:
        kind = ProblemKind::kInvalidMissingTime;
        text = example + ": a start or end time is missing or not a number; dropped";
        break;
      case Verdict::kEndBeforeStart:
        kind = ProblemKind::kInvalidEndBeforeStart;
        text = example + ": it ends before it starts; dropped";
        break;
      default:
        kind = ProblemKind::kInvalidTimeOutOfRange;
        text = example + ": outside the trace's clock range [" + std::to_string(lo_) + ", " +
               std::to_string(hi_) + "] ns (the bulk of its events, widened); dropped";
        break;
    }
    if (result_.first_problem.empty()) result_.first_problem = text;
    t_.problems.Add(kind, text);
  }

  Trace& t_;
  const ValidationOptions& o_;
  ValidationResult result_;
  bool skip_clamped_ = false;
  bool gpu_dropped_ = false;  // a kernel, copy or GPU range was dropped
  uint64_t stride_ = 1, seen_ = 0;
  std::vector<int64_t> sample_;
  int64_t lo_ = -(int64_t{1} << 62), hi_ = int64_t{1} << 62;
};

}  // namespace

ValidationResult ValidateEvents(Trace& t, const ValidationOptions& options) {
  return Validator(t, options).Run();
}

}  // namespace gpuscope::model
