// Waits for GPU work the trace does not hold, at the recording's start (before_trace.h).

#include "analysis/steps/before_trace.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "analysis/common/call_names.h"
#include "analysis/common/median.h"

namespace gpuscope::analysis {
namespace {

using model::kNoRow;
using model::RowId;

constexpr int64_t kMinWaitNs = 1'000'000;
// A first op's wait this many times the device's usual one is for work the trace does not hold.
constexpr int64_t kUsualFactor = 20;
// Ops launched after that op ran needed to know the device's usual wait.
constexpr size_t kMinMeasured = 3;

// A GPU op of one device: a kernel or a copy/memset row (32 bytes: a 1 GB trace holds
// millions).
struct Op {
  int64_t start, end;
  RowId launch;
  RowId row;
  bool memop;
};

// Where an op's wait on the GPU begins: its launch call's end when the call returned before the
// op ran, else the call's start (a blocking call held the host while the op waited).
int64_t WaitFrom(const model::Trace& t, const Op& o) {
  const RowId l = o.launch;
  return t.api.end_ns(l) <= o.start ? t.api.end_ns(l) : t.api.start_ns[l];
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
  // Counted first: each device's list grows once (grown by doubling, its copies and fresh pages
  // were a third of this function on the 1 GB trace).
  std::map<int16_t, size_t> count;
  for (int16_t d : k.device) ++count[d];
  for (int16_t d : m.device) ++count[d];
  for (const auto& [d, n] : count) by_device[d].reserve(n);
  for (size_t i = 0; i < k.size(); ++i)
    by_device[k.device[i]].push_back(
        {k.start_ns[i], k.end_ns(i), k.launch[i], static_cast<RowId>(i), false});
  for (size_t i = 0; i < m.size(); ++i)
    by_device[m.device[i]].push_back(
        {m.start_ns[i], m.end_ns(i), m.launch[i], static_cast<RowId>(i), true});
  std::vector<OneTimePart> out;
  if (by_device.empty()) return out;
  int64_t first_gpu = INT64_MAX, least_all = INT64_MAX;
  std::unordered_set<RowId> first_launches;
  const int64_t trace_start = t.TimeSpan().first;
  for (auto& [device, ops] : by_device) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    first_gpu = std::min(first_gpu, ops.front().start);
    // The op that waited at the recording's start: launched onto the idle device, which stayed
    // idle, 1 ms or more, its wait beginning within its own length of the trace's start (a
    // resnet50's first input copy; SGLang's second kernel, held 463 ms by a stream wait on an
    // event recorded outside the trace). The first such op of the device.
    size_t pick = SIZE_MAX;
    int64_t busy_to = INT64_MIN;
    for (size_t i = 0; i < ops.size() && pick == SIZE_MAX; ++i) {
      const Op& o = ops[i];
      if (o.launch != kNoRow) {
        // A call that returned before its op ran waited nothing on the host (a long launch call
        // is its own: module loading); one that held the host waited from its start.
        const int64_t at = WaitFrom(t, o), wait = o.start - at;
        if (t.api.start_ns[o.launch] >= busy_to && wait >= kMinWaitNs && at - trace_start <= wait)
          pick = i;
      }
      busy_to = std::max(busy_to, o.end);
    }
    // The device's usual wait for an idle GPU and the least wait of any op, from the ops launched
    // once that op (else the first) ran: those launched before it share its wait.
    const int64_t after = ops[pick == SIZE_MAX ? 0 : pick].start;
    std::vector<int64_t> idle_waits;
    int64_t least = INT64_MAX;
    size_t measured = 0;
    busy_to = INT64_MIN;
    for (const Op& o : ops) {
      if (o.launch != kNoRow && t.api.start_ns[o.launch] >= after) {
        const int64_t w = o.start - t.api.start_ns[o.launch];
        least = std::min(least, w);
        ++measured;
        if (t.api.start_ns[o.launch] >= busy_to) idle_waits.push_back(w);
      }
      busy_to = std::max(busy_to, o.end);
    }
    least_all = std::min(least_all, least);
    if (ops.front().launch != kNoRow) first_launches.insert(ops.front().launch);
    // Without ops launched after it ran, the device's usual wait is unknown: a wait for unseen
    // work and clocks that disagree look alike (a vLLM trace whose every op starts 6-8 ms after
    // its launch, all launched before the first ran); the clock check says so.
    if (pick == SIZE_MAX || measured < kMinMeasured) continue;
    const Op& first = ops[pick];
    const RowId l = first.launch;
    first_launches.insert(l);  // judged here, not as a host wait below
    // A blocking call stays the steady state's from its first nanosecond (Context::In reads a
    // call by its start): only its wait is left out.
    const int64_t wait = first.start - WaitFrom(t, first);
    const int64_t from = WaitFrom(t, first) + (t.api.end_ns(l) <= first.start ? 0 : 1);
    const int64_t usual =
        std::max(UpperMedian(std::move(idle_waits)), least == INT64_MAX ? 0 : least);
    if (!in(from) || first.start > end || wait < kUsualFactor * usual) continue;
    OneTimePart p = Part(from, first.start, t.api.track[l]);
    (first.memop ? p.first_memop : p.first_kernel) = first.row;
    out.push_back(std::move(p));
    // The launching thread's work before the call ran beside the GPU work the trace does not
    // hold, for all the trace can tell: what it would cost without that work is unknowable (a
    // resnet50's first data-loader wait, 4.3 ms where later steps wait 1.3 ms).
    const int64_t lo = std::max(start, trace_start);  // an unbounded window: the trace's
    if (lo < t.api.start_ns[l])
      out.push_back(Part(lo, t.api.start_ns[l], t.api.track[l], kBesideBeforeTraceWhat));
  }
  // The host's waits before any recorded GPU op ran, on the host's clock: the GPU's clock less
  // the least wait of an op launched once GPU work ran. Without such an op the clocks cannot be
  // told apart from unseen work (a serving step whose ops were all launched before the first ran).
  if (least_all == INT64_MAX) return out;
  first_gpu -= std::max<int64_t>(0, least_all);
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
