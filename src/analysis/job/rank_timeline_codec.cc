#include "analysis/job/rank_timeline_codec.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "base/varint.h"

namespace gpuscope::analysis {
namespace {

constexpr std::string_view kMagic = "gpuscope-rank-timeline";
constexpr uint64_t kVersion = 1;

class Writer {
 public:
  void U(uint64_t v) { base::PutVarint(out_, v); }
  void I(int64_t v) { U(base::ZigZag(v)); }
  void S(std::string_view s) { U(s.size()), out_.append(s); }
  template <typename T, typename F>
  void Array(const std::vector<T>& v, F each) {
    U(v.size());
    for (const auto& x : v) each(x);
  }
  void Ints(const std::vector<int64_t>& v) {
    Array(v, [this](int64_t x) { I(x); });
  }
  void Uints(const std::vector<uint32_t>& v) {
    Array(v, [this](uint32_t x) { U(x); });
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote; after the first error every read returns 0 and ok() is false.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  bool at_end() const { return p_ == b_.size(); }
  void Fail(std::string why) {
    if (ok_) ok_ = false, error_ = std::move(why);
  }
  uint64_t U() {
    uint64_t v = 0;
    if (!ok_) return 0;
    if (!base::GetVarint(b_, &p_, &v)) {
      Fail(p_ >= b_.size() ? "it ends early" : "a number is too long");
      return 0;
    }
    return v;
  }
  int64_t I() { return base::UnZigZag(U()); }
  // A count of items of at least one byte each: never more than the bytes left.
  size_t Count() {
    uint64_t n = U();
    if (n > b_.size() - p_) Fail("a length runs past its end");
    return ok_ ? static_cast<size_t>(n) : 0;
  }
  std::string S() {
    size_t n = Count();
    std::string s(b_.substr(p_, n));
    p_ += n;
    return s;
  }
  template <typename T, typename F>
  void Array(std::vector<T>& v, F each) {
    size_t n = Count();
    v.clear();
    v.reserve(n);
    for (size_t i = 0; i < n && ok_; ++i) v.push_back(each());
  }
  void Ints(std::vector<int64_t>& v) {
    Array(v, [this] { return I(); });
  }
  void Uints(std::vector<uint32_t>& v) {
    Array(v, [this] {
      uint64_t x = U();
      if (x > UINT32_MAX) Fail("an offset is out of range");
      return static_cast<uint32_t>(x);
    });
  }

 private:
  std::string_view b_;
  size_t p_ = 0;
  bool ok_ = true;
  std::string error_;
};

void WriteCall(Writer& w, const CollectiveCall& c) {
  w.U(c.kernel), w.I(c.start_ns), w.I(c.end_ns), w.S(c.name), w.S(c.group), w.S(c.dtype);
  w.I(c.bytes), w.I(c.group_size), w.I(c.seq);
}

CollectiveCall ReadCall(Reader& r) {
  CollectiveCall c;
  c.kernel = r.U(), c.start_ns = r.I(), c.end_ns = r.I();
  c.name = r.S(), c.group = r.S(), c.dtype = r.S();
  c.bytes = r.I(), c.group_size = r.I(), c.seq = r.I();
  return c;
}

// Offsets into `rows` per call (one more than the calls), rising, the last at rows' end.
bool Offsets(const std::vector<uint32_t>& begin, size_t calls, size_t rows) {
  if (begin.size() != calls + 1 || begin.front() != 0 || begin.back() != rows) return false;
  for (size_t i = 1; i < begin.size(); ++i) {
    if (begin[i] < begin[i - 1]) return false;
  }
  return true;
}

// What AnalyzeJob indexes without checking: per-call arrays as long as the calls, offsets
// within their rows, names within the names.
std::string Invalid(const RankTimeline& t) {
  const size_t n = t.calls.size();
  if (t.issued_ns.size() != n || t.work_ns.size() != n || t.work_start_ns.size() != n + 1 ||
      t.busy_to_start_ns.size() != n || t.busy_to_end_ns.size() != n ||
      t.compute_after_ns.size() != n)
    return "its per-call measures do not match its " + std::to_string(n) + " calls";
  if (!Offsets(t.beside_begin, n, t.beside.size()) ||
      !Offsets(t.kernel_time_begin, n, t.kernel_time.size()) ||
      !Offsets(t.op_time_begin, n, t.op_time.size()))
    return "its per-call offsets are out of order or out of range";
  for (const auto* rows : {&t.kernel_time, &t.op_time}) {
    for (const auto& row : *rows) {
      if (row.name >= t.names.size()) return "a name index is out of range";
    }
  }
  return "";
}

}  // namespace

std::string EncodeRankTimeline(const RankTimeline& t) {
  Writer w;
  w.S(kMagic), w.U(kVersion);
  w.I(t.rank), w.S(t.path), w.I(t.world_size), w.U(t.kernels), w.U(t.fingerprint);
  w.U(t.steps), w.I(t.step_median_ns), w.U(t.gpu_work);
  w.I(t.first_ns), w.I(t.last_ns), w.I(t.active_ns);
  w.I(t.busy_ns), w.I(t.compute_ns), w.I(t.comm_ns), w.I(t.overlapped_comm_ns);
  w.Array(t.calls, [&w](const CollectiveCall& c) { WriteCall(w, c); });
  w.Ints(t.issued_ns), w.Ints(t.work_ns), w.Ints(t.work_start_ns);
  w.Ints(t.busy_to_start_ns), w.Ints(t.busy_to_end_ns), w.Ints(t.compute_after_ns);
  w.Uints(t.beside_begin);
  w.Array(t.beside, [&w](const Interval& iv) { w.I(iv.first), w.I(iv.second); });
  w.Array(t.names, [&w](const std::string& s) { w.S(s); });
  auto name_time = [&w](const NameTime& x) { w.U(x.name), w.I(x.ns); };
  w.Uints(t.kernel_time_begin), w.Array(t.kernel_time, name_time);
  w.Uints(t.op_time_begin), w.Array(t.op_time, name_time);
  return w.Take();
}

base::StatusOr<RankTimeline> DecodeRankTimeline(std::string_view bytes, const std::string& what) {
  auto fail = [&what](const std::string& why) {
    return base::Status::Error(what + ": not a rank summary gpuscope can read (" + why +
                               "); summarize the rank again with the same gpuscope version");
  };
  Reader r(bytes);
  if (r.S() != kMagic || !r.ok()) return fail("no rank-summary header");
  if (uint64_t v = r.U(); v != kVersion)
    return fail("version " + std::to_string(v) + ", this gpuscope reads " +
                std::to_string(kVersion));
  RankTimeline t;
  int64_t rank = r.I();
  if (rank < INT32_MIN || rank > INT32_MAX) r.Fail("its rank is out of range");
  t.rank = static_cast<int32_t>(rank);
  t.path = r.S(), t.world_size = r.I(), t.kernels = r.U(), t.fingerprint = r.U();
  t.steps = r.U(), t.step_median_ns = r.I(), t.gpu_work = r.U() != 0;
  t.first_ns = r.I(), t.last_ns = r.I(), t.active_ns = r.I();
  t.busy_ns = r.I(), t.compute_ns = r.I(), t.comm_ns = r.I(), t.overlapped_comm_ns = r.I();
  r.Array(t.calls, [&r] { return ReadCall(r); });
  r.Ints(t.issued_ns), r.Ints(t.work_ns), r.Ints(t.work_start_ns);
  r.Ints(t.busy_to_start_ns), r.Ints(t.busy_to_end_ns), r.Ints(t.compute_after_ns);
  r.Uints(t.beside_begin);
  r.Array(t.beside, [&r] {
    int64_t a = r.I();
    return Interval{a, r.I()};
  });
  r.Array(t.names, [&r] { return r.S(); });
  auto name_time = [&r] {
    uint64_t name = r.U();
    if (name > UINT32_MAX) r.Fail("a name index is out of range");
    return NameTime{static_cast<uint32_t>(name), r.I()};
  };
  r.Uints(t.kernel_time_begin), r.Array(t.kernel_time, name_time);
  r.Uints(t.op_time_begin), r.Array(t.op_time, name_time);
  if (!r.ok()) return fail(r.error());
  if (!r.at_end()) return fail("bytes after its end");
  if (std::string why = Invalid(t); !why.empty()) return fail(why);
  return t;
}

}  // namespace gpuscope::analysis
