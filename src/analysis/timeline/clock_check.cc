#include "analysis/timeline/clock_check.h"

#include <algorithm>
#include <map>

#include "analysis/common/intervals.h"
#include "base/text.h"
#include "model/plausibility.h"

namespace gpuscope::analysis {

std::string_view ClockVerdictName(ClockVerdict v) {
  static constexpr std::string_view kNames[] = {"ok", "clock offset", "unexplained delay"};
  return kNames[static_cast<size_t>(v)];
}
namespace {

struct LinkedOp {
  int64_t start, end, launch_start, launch_end;
};

int64_t Quantile(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  size_t k =
      std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

bool BusyAt(const std::vector<Interval>& busy, int64_t ts) {
  auto it = std::upper_bound(busy.begin(), busy.end(), std::make_pair(ts, INT64_MAX));
  if (it == busy.begin()) return false;
  --it;
  return ts >= it->first && ts < it->second;
}

}  // namespace

bool ClockCheck::problem() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceClockCheck& d) { return d.verdict != ClockVerdict::kOk; });
}

namespace {

// Each device's busy time: every kernel and memory op on it, with a launch call or not (a
// copy the trace does not link still keeps the GPU busy).
std::map<int, std::vector<Interval>> BusyPerDevice(const model::Trace& t) {
  std::map<int, std::vector<Interval>> busy;
  auto add = [&](const model::SliceColumns& ops, const std::vector<int16_t>& device) {
    for (size_t i = 0; i < ops.size(); ++i)
      busy[device[i]].emplace_back(ops.start_ns[i], ops.end_ns(i));
  };
  add(t.kernels, t.kernels.device);
  add(t.memops, t.memops.device);
  for (auto& [dev, b] : busy) MergeIntervals(b);
  return busy;
}

// The ok verdict's words: what the queued ops and those launched onto the idle GPU did.
std::string OkExplanation(const DeviceClockCheck& d) {
  std::string idle;
  if (d.idle_launched > 0 && d.idle_launch_median_ns > kPromptLaunchNs) {
    idle = base::FormatCount(d.idle_launched) +
           " ops launched onto the idle GPU started a median " +
           base::FormatDuration(d.idle_launch_median_ns) + " after their launch call began";
    idle += d.idle_in_call * 2 > d.idle_launched
                ? " (" + base::FormatCount(d.idle_in_call) +
                      " while the call still ran: blocking calls, whose host work comes first)"
                : " (launches take tens of us: slow launches, under the " +
                      base::FormatDuration(kUnexplainedIdleWaitNs) + " counted as unexplained)";
  }
  if (d.queued) {
    std::string q = d.max_queue_ns > 0
                        ? "ops waited only behind running GPU work (the host "
                          "runs ahead by up to " +
                              base::FormatDuration(d.max_queue_ns) + "; not a problem)"
                        : "ops launched while the GPU ran other work started "
                          "while their call still ran (blocking calls; not a problem)";
    return idle.empty() ? q : q + "; " + idle;
  }
  return idle.empty() ? "ops start promptly after their launch" : idle;
}

}  // namespace

ClockCheck CheckClocks(const model::Trace& t) {
  std::map<int, std::vector<LinkedOp>> per_device;
  auto add = [&](const model::SliceColumns& ops, const std::vector<model::RowId>& launch,
                 const std::vector<int16_t>& device) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (launch[i] == model::kNoRow) continue;
      per_device[device[i]].push_back(
          {ops.start_ns[i], ops.end_ns(i), t.api.start_ns[launch[i]], t.api.end_ns(launch[i])});
    }
  };
  add(t.kernels, t.kernels.launch, t.kernels.device);
  add(t.memops, t.memops.launch, t.memops.device);
  std::map<int, std::vector<Interval>> busy_of = BusyPerDevice(t);
  ClockCheck out;
  const bool misordered = t.problems.Count(model::kLaunchOrder) > 0;
  for (auto& [dev, ops] : per_device) {
    DeviceClockCheck d;
    d.device = dev;
    d.ops = ops.size();
    const std::vector<Interval>& busy = busy_of[dev];
    if (!busy.empty()) {  // from the first launch (an op may wait before the first start)
      int64_t lo = busy.front().first;
      for (const auto& o : ops) lo = std::min(lo, o.launch_end);
      const int64_t hi = std::max(busy.back().second, lo);
      d.idle_ns = hi - lo - CoveredWithin(busy, lo, hi);
    }
    std::vector<int64_t> latency, idle_wait, idle_latency;
    for (const auto& o : ops) {
      latency.push_back(o.start - o.launch_start);
      if (o.start < o.launch_start) {
        ++d.before_launch;
        d.max_before_ns = std::max(d.max_before_ns, o.launch_start - o.start);
        continue;
      }
      if (BusyAt(busy, o.launch_end)) {
        ++d.queued;
        d.max_queue_ns = std::max(d.max_queue_ns, o.start - o.launch_end);
        continue;
      }
      ++d.idle_launched;
      idle_latency.push_back(o.start - o.launch_start);
      if (o.start < o.launch_end) ++d.idle_in_call;
      int64_t wait = o.start - o.launch_end - CoveredWithin(busy, o.launch_end, o.start);
      if (wait > kUnexplainedIdleWaitNs) idle_wait.push_back(wait);
    }
    d.p10_ns = Quantile(latency, 0.10);
    d.median_ns = Quantile(latency, 0.50);
    d.p90_ns = Quantile(latency, 0.90);
    d.max_ns = *std::max_element(latency.begin(), latency.end());
    d.idle_delayed = idle_wait.size();
    d.idle_launch_median_ns = Quantile(idle_latency, 0.5);
    if (!idle_wait.empty()) {
      d.idle_wait_median_ns = Quantile(idle_wait, 0.5);
      d.idle_wait_min_ns = *std::min_element(idle_wait.begin(), idle_wait.end());
      d.idle_wait_max_ns = *std::max_element(idle_wait.begin(), idle_wait.end());
    }
    if (d.before_launch && misordered) {
      // Kernels that run against their launch order are linked to the wrong launches (or timed
      // by a clock that jumped): no shift of the GPU's clock can repair that.
      d.verdict = ClockVerdict::kClockOffset;
      d.explanation = base::FormatCount(d.before_launch) + " of " + base::FormatCount(d.ops) +
                      " GPU ops start before their launch call began, and kernels run in another "
                      "order than their launches (impossible.launch_order): the links or the "
                      "clock are damaged, not offset; --align-clocks would not repair it";
    } else if (d.before_launch) {
      d.verdict = ClockVerdict::kClockOffset;
      d.explanation = base::FormatCount(d.before_launch) + " of " + base::FormatCount(d.ops) +
                      " GPU ops start before their launch call began (by up to " +
                      base::FormatDuration(d.max_before_ns) +
                      "): the CPU and GPU clocks disagree; --align-clocks shifts this GPU's "
                      "events by +" +
                      base::FormatDuration(d.max_before_ns);
    } else if (d.idle_delayed) {
      d.verdict = ClockVerdict::kUnexplainedDelay;
      d.explanation = base::FormatCount(d.idle_delayed) +
                      " GPU ops launched onto the idle GPU waited " +
                      base::FormatDuration(d.idle_wait_min_ns) + " to " +
                      base::FormatDuration(d.idle_wait_max_ns) +
                      " while it stayed idle: either the CPU and GPU clocks disagree by about " +
                      base::FormatDuration(d.idle_wait_min_ns) +
                      ", or the GPU waited for work the trace does not show (another process, "
                      "an event recorded elsewhere); not corrected";
    } else {
      d.verdict = ClockVerdict::kOk;
      d.explanation = OkExplanation(d);
    }
    out.devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpuscope::analysis
