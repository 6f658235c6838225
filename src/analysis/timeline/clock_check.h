#pragma once
// Clock and queue sanity: how long GPU ops take from their launch call to their start, per
// device, and what that says.
//  - An op that starts before the call that launched it began is impossible on one clock: the
//    CPU and GPU timelines disagree (a known ROCm / Kineto trap). The offset that makes every op
//    start at or after its launch is the correction `--align-clocks` applies while the trace is
//    linked (model/clock_alignment.h).
//  - Ops launched onto an idle GPU start within tens of microseconds on every runtime. When they
//    wait much longer while the GPU stays idle, either the clocks disagree by about that much or
//    the GPU ran work the trace does not show (another process, an event recorded elsewhere):
//    both are said, nothing is corrected.
//  - Ops that wait while the GPU is busy are queued behind earlier work: the host runs ahead,
//    which is healthy.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// A wait on an idle GPU longer than this is not launch latency (which is tens of us).
inline constexpr int64_t kUnexplainedIdleWaitNs = 1'000'000;
// Ops launched onto an idle GPU "start promptly" when their median launch-to-start is at most
// this (launch latency is tens of us); slower ones are said with their figure.
inline constexpr int64_t kPromptLaunchNs = 100'000;

// What a device's launch-to-start times say about the trace's clocks.
enum class ClockVerdict { kOk, kClockOffset, kUnexplainedDelay };
// "ok", "clock offset", "unexplained delay": the JSON's and the terminal's words.
std::string_view ClockVerdictName(ClockVerdict v);

struct DeviceClockCheck {
  int device = -1;
  uint64_t ops = 0;  // GPU ops with a known launch call
  // Launch call start -> op start.
  int64_t p10_ns = 0, median_ns = 0, p90_ns = 0, max_ns = 0;
  uint64_t before_launch = 0;         // ops that start before their launch call began
  int64_t max_before_ns = 0;          // by at most this much
  uint64_t idle_launched = 0;         // ops launched while the device was idle
  int64_t idle_launch_median_ns = 0;  // their launch call start -> op start
  uint64_t idle_in_call = 0;          // of them, ops that started while their call still ran
  // The device's idle time from the first launch call's end to its last op's end (every kernel
  // and memory op of the device, launched or not, counts as busy): no wait on an idle GPU can
  // exceed it.
  int64_t idle_ns = 0;
  uint64_t idle_delayed = 0;  // of those, ops that then waited > kUnexplainedIdleWaitNs idle
  int64_t idle_wait_median_ns = 0, idle_wait_min_ns = 0, idle_wait_max_ns = 0;  // the delayed
  uint64_t queued = 0;       // ops launched while the device was busy
  int64_t max_queue_ns = 0;  // longest launch-to-start wait among them
  ClockVerdict verdict = ClockVerdict::kOk;
  std::string explanation;  // one line, in words
};

struct ClockCheck {
  std::vector<DeviceClockCheck> devices;
  bool problem() const;
};

ClockCheck CheckClocks(const model::Trace& t);

}  // namespace gpuscope::analysis
