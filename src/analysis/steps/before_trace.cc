// Waits for GPU work from before the trace (before_trace.h).

#include "analysis/steps/before_trace.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "analysis/common/call_names.h"

namespace gpuscope::analysis {
namespace {

using model::kNoRow;
using model::RowId;

constexpr int64_t kMinWaitNs = 1'000'000;
// A first op's wait this many times the device's usual one is for work the trace does not hold.
constexpr int64_t kUsualFactor = 20;

// A GPU op of one device: a kernel or a copy/memset row.
struct Op {
  int64_t start, end;
  RowId launch;
  size_t row;
  bool memop;
};

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

OneTimePart Part(int64_t s, int64_t e, model::TrackId track,
                 std::string_view what = kBeforeTraceWhat) {
  OneTimePart p{s, e, track, std::string(what), {}, kNoRow, SIZE_MAX};
  p.before_trace = true;
  return p;
}

}  // namespace

std::vector<OneTimePart> FindWaitsBeforeTrace(const model::Trace& t, int64_t start, int64_t end) {
  auto in = [&](int64_t ts) { return ts >= start && ts < end; };
  std::map<int16_t, std::vector<Op>> by_device;
  const auto& k = t.kernels;
  const auto& m = t.memops;
  for (size_t i = 0; i < k.size(); ++i)
    by_device[k.device[i]].push_back({k.start_ns[i], k.end_ns(i), k.launch[i], i, false});
  for (size_t i = 0; i < m.size(); ++i)
    by_device[m.device[i]].push_back({m.start_ns[i], m.end_ns(i), m.launch[i], i, true});
  std::vector<OneTimePart> out;
  if (by_device.empty()) return out;
  int64_t first_gpu = INT64_MAX, least_all = INT64_MAX;
  std::unordered_set<RowId> first_launches;
  for (auto& [device, ops] : by_device) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    first_gpu = std::min(first_gpu, ops.front().start);
    // The device's usual wait for an idle GPU (the first op aside), and the least wait of any.
    std::vector<int64_t> idle_waits;
    int64_t busy_to = ops.front().end, least = INT64_MAX;
    for (size_t i = 1; i < ops.size(); ++i) {
      const Op& o = ops[i];
      if (o.launch != kNoRow) {
        const int64_t w = o.start - t.api.start_ns[o.launch];
        least = std::min(least, w);
        if (t.api.start_ns[o.launch] >= busy_to) idle_waits.push_back(w);
      }
      busy_to = std::max(busy_to, o.end);
    }
    least_all = std::min(least_all, least);
    const Op& first = ops.front();
    if (first.launch == kNoRow) continue;
    const RowId l = first.launch;
    first_launches.insert(l);  // judged here, not as a host wait below
    const int64_t from = t.api.end_ns(l) <= first.start ? t.api.end_ns(l) : t.api.start_ns[l] + 1;
    const int64_t wait = first.start - t.api.start_ns[l];
    const int64_t usual = std::max(Median(std::move(idle_waits)), least == INT64_MAX ? 0 : least);
    if (!in(from) || first.start > end || wait < kMinWaitNs || wait < kUsualFactor * usual)
      continue;
    OneTimePart p = Part(from, first.start, t.api.track[l]);
    (first.memop ? p.first_memop : p.first_kernel) = first.row;
    out.push_back(std::move(p));
    // The launching thread's work before the call ran beside the GPU work the trace does not
    // hold, for all the trace can tell: what it would cost without that work is unknowable (a
    // resnet50's first data-loader wait, 4.3 ms where later steps wait 1.3 ms).
    const int64_t lo = std::max(start, t.TimeSpan().first);  // an unbounded window: the trace's
    if (lo < t.api.start_ns[l])
      out.push_back(Part(lo, t.api.start_ns[l], t.api.track[l], kBesideBeforeTraceWhat));
  }
  // The host's waits before any recorded GPU op ran, on the host's clock.
  if (least_all != INT64_MAX) first_gpu -= std::max<int64_t>(0, least_all);
  for (size_t i = 0; i < t.api.size() && t.api.start_ns[i] < first_gpu; ++i) {
    std::string_view n = t.str(t.api.name[i]);
    if (!in(t.api.start_ns[i]) || !(IsSyncApi(n) || IsBlockingCopyApi(n)) ||
        first_launches.count(static_cast<RowId>(i)))
      continue;
    const int64_t e = std::min(t.api.end_ns(i), first_gpu);
    if (e - t.api.start_ns[i] >= kMinWaitNs)
      out.push_back(Part(t.api.start_ns[i], e, t.api.track[i]));
  }
  return out;
}

}  // namespace gpuscope::analysis
