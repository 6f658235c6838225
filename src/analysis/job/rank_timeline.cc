#include "analysis/job/rank_timeline.h"

#include <algorithm>
#include <climits>
#include <string_view>
#include <unordered_map>

#include "analysis/job/job_internal.h"
#include "base/varint.h"

namespace gpuscope::analysis {
namespace {

// FNV-1a over every kernel's start, duration and name: two ranks of one job never agree on all
// of them to the nanosecond; a file copied under two ranks does.
uint64_t KernelFingerprint(const model::Trace& t) {
  uint64_t h = base::kFnvOffset;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    h = base::Fnv1a(&t.kernels.start_ns[i], sizeof(int64_t), h);
    h = base::Fnv1a(&t.kernels.dur_ns[i], sizeof(int64_t), h);
    h = base::Fnv1a(t.str(t.kernels.name[i]), h);
  }
  return h;
}

// The end of the first iteration (ProfilerStep#, in the trace's order: by start) holding a time;
// INT64_MAX without iterations or outside them. A lookup is two binary searches (the first
// iteration whose end is past t is where the running maximum of the ends first passes t).
class IterationEnds {
 public:
  explicit IterationEnds(const std::vector<model::Iteration>& its) : its_(its) {
    int64_t m = INT64_MIN;
    for (const auto& it : its_) max_end_.push_back(m = std::max(m, it.start_ns + it.dur_ns));
  }
  int64_t At(int64_t t) const {
    size_t i = static_cast<size_t>(std::upper_bound(max_end_.begin(), max_end_.end(), t) -
                                   max_end_.begin());
    if (i >= its_.size() || its_[i].start_ns > t) return INT64_MAX;
    return its_[i].start_ns + its_[i].dur_ns;
  }

 private:
  const std::vector<model::Iteration>& its_;
  std::vector<int64_t> max_end_;  // running maximum of the iterations' ends
};

// Names interned once per rank, by their bytes.
class NameIndex {
 public:
  explicit NameIndex(std::vector<std::string>& names) : names_(names) {}
  uint32_t Of(std::string_view s) {
    auto [it, added] = index_.emplace(s, static_cast<uint32_t>(names_.size()));
    if (added) names_.emplace_back(s);
    return it->second;
  }

 private:
  std::vector<std::string>& names_;
  std::unordered_map<std::string_view, uint32_t> index_;  // views into the trace's strings
};

// Per call, name -> time, flattened into begin offsets and (name, ns) rows.
void Flatten(std::vector<std::unordered_map<uint32_t, int64_t>>& per_call,
             std::vector<uint32_t>& begin, std::vector<NameTime>& rows) {
  begin.assign(1, 0);
  for (auto& m : per_call) {
    size_t from = rows.size();
    for (const auto& [name, ns] : m) rows.push_back({name, ns});
    std::sort(rows.begin() + static_cast<std::ptrdiff_t>(from), rows.end(),
              [](const NameTime& a, const NameTime& b) { return a.name < b.name; });
    begin.push_back(static_cast<uint32_t>(rows.size()));
  }
}

}  // namespace

RankTimeline SummarizeRank(const model::Trace& t, int32_t rank, const std::string& path) {
  RankTimeline d;
  d.rank = rank;
  d.path = path;
  d.world_size = t.meta.world_size > 0 ? t.meta.world_size : -1;
  d.kernels = t.kernels.size();
  d.fingerprint = KernelFingerprint(t);
  d.steps = t.iterations.size();
  if (!t.iterations.empty()) {
    std::vector<int64_t> dur;
    for (const auto& it : t.iterations) dur.push_back(it.dur_ns);
    d.step_median_ns = job_internal::Median(std::move(dur));
  }
  d.calls = FindCollectives(t);
  const size_t n = d.calls.size();

  // GPU time: compute (kernels other than communication, copies), communication, any.
  std::vector<Interval> compute, comm, busy;
  std::vector<uint8_t> is_comm(t.kernels.size());
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    Interval iv{t.kernels.start_ns[k], t.kernels.end_ns(k)};
    is_comm[k] = IsCommKernelName(t.str(t.kernels.name[k]));
    (is_comm[k] ? comm : compute).push_back(iv);
    busy.push_back(iv);
  }
  for (size_t k = 0; k < t.memops.size(); ++k) {
    Interval iv{t.memops.start_ns[k], t.memops.end_ns(k)};
    compute.push_back(iv);
    busy.push_back(iv);
  }
  d.gpu_work = !busy.empty();
  d.first_ns = INT64_MAX, d.last_ns = INT64_MIN;
  for (const auto& iv : busy)
    d.first_ns = std::min(d.first_ns, iv.first), d.last_ns = std::max(d.last_ns, iv.second);
  if (busy.empty()) d.first_ns = d.last_ns = 0;
  d.active_ns = d.first_ns;
  for (size_t i = 0; i < t.cpu.size(); ++i) d.active_ns = std::min(d.active_ns, t.cpu.start_ns[i]);
  for (size_t i = 0; i < t.api.size(); ++i) d.active_ns = std::min(d.active_ns, t.api.start_ns[i]);
  MergeIntervals(compute), MergeIntervals(comm), MergeIntervals(busy);
  for (const auto& iv : busy) d.busy_ns += iv.second - iv.first;
  for (const auto& iv : compute) d.compute_ns += iv.second - iv.first;
  for (const auto& iv : comm) {
    d.comm_ns += iv.second - iv.first;
    d.overlapped_comm_ns += CoveredWithin(compute, iv.first, iv.second);
  }

  // Program order: a compute kernel belongs to the first collective issued after it (by its
  // launch call's start, else its own start), so a rank's work between two collectives counts
  // as theirs even when its GPU ran ahead of its collectives (collectives on a stream of their
  // own).
  auto issued = [&](size_t k) {
    model::RowId api = t.kernels.launch[k];
    return api != model::kNoRow ? t.api.start_ns[api] : t.kernels.start_ns[k];
  };
  for (const auto& c : d.calls)
    d.issued_ns.push_back(
        std::max(d.issued_ns.empty() ? INT64_MIN : d.issued_ns.back(), issued(c.kernel)));
  d.work_ns.assign(n, 0);
  d.work_start_ns.assign(n + 1, INT64_MAX);
  NameIndex names(d.names);
  std::vector<std::unordered_map<uint32_t, int64_t>> kernel_time(n), op_time(n);
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    if (is_comm[k]) continue;
    auto it = std::lower_bound(d.issued_ns.begin(), d.issued_ns.end(), issued(k));
    size_t c = static_cast<size_t>(it - d.issued_ns.begin());
    d.work_start_ns[c] = std::min(d.work_start_ns[c], t.kernels.start_ns[k]);
    if (it == d.issued_ns.end()) continue;
    d.work_ns[c] += t.kernels.dur_ns[k];
    kernel_time[c][names.Of(t.str(t.kernels.name[k]))] += t.kernels.dur_ns[k];
  }
  // Host ops by self time, each for the first collective issued after it started.
  std::vector<int64_t> self(t.cpu.dur_ns.begin(), t.cpu.dur_ns.end());
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.parent[i] != model::kNoRow) self[t.cpu.parent[i]] -= t.cpu.dur_ns[i];
  }
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != model::CpuRangeKind::kOp || self[i] <= 0) continue;
    auto it = std::upper_bound(d.issued_ns.begin(), d.issued_ns.end(), t.cpu.start_ns[i]);
    size_t c = static_cast<size_t>(it - d.issued_ns.begin());
    if (c < n) op_time[c][names.Of(t.str(t.cpu.name[i]))] += self[i];
  }
  Flatten(kernel_time, d.kernel_time_begin, d.kernel_time);
  Flatten(op_time, d.op_time_begin, d.op_time);

  // The measures at the calls' boundaries and within their spans.
  const IterationEnds iteration_end(t.iterations);
  std::vector<int64_t> busy_before(busy.size() + 1, 0);  // busy_before[i]: busy[0, i)'s time
  for (size_t i = 0; i < busy.size(); ++i)
    busy_before[i + 1] = busy_before[i] + busy[i].second - busy[i].first;
  auto busy_to = [&](int64_t x) {  // busy time before x
    size_t i = static_cast<size_t>(
        std::lower_bound(busy.begin(), busy.end(), x,
                         [](const Interval& iv, int64_t v) { return iv.first < v; }) -
        busy.begin());
    if (i == 0) return int64_t{0};
    return busy_before[i - 1] + std::min(busy[i - 1].second, x) - busy[i - 1].first;
  };
  d.beside_begin.assign(1, 0);
  for (size_t c = 0; c < n; ++c) {
    const CollectiveCall& call = d.calls[c];
    d.busy_to_start_ns.push_back(busy_to(call.start_ns));
    d.busy_to_end_ns.push_back(busy_to(call.end_ns));
    int64_t next = c + 1 < n ? d.calls[c + 1].start_ns : d.last_ns;
    int64_t boundary = iteration_end.At(call.end_ns);
    d.compute_after_ns.push_back(
        CoveredWithin(compute, call.end_ns, std::max(call.end_ns, std::min(next, boundary))));
    auto it =
        std::upper_bound(compute.begin(), compute.end(), std::make_pair(call.start_ns, INT64_MAX));
    if (it != compute.begin()) --it;
    for (; it != compute.end() && it->first < call.end_ns; ++it) {
      int64_t a = std::max(it->first, call.start_ns), b = std::min(it->second, call.end_ns);
      if (b > a) d.beside.emplace_back(a, b);
    }
    d.beside_begin.push_back(static_cast<uint32_t>(d.beside.size()));
  }
  return d;
}

}  // namespace gpuscope::analysis
