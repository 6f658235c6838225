#pragma once
// The constants the replay graph's files share (internal to src/analysis), with the name and
// interval helpers they use.

#include <cstdint>
#include <limits>

#include "analysis/call_names.h"
#include "analysis/intervals.h"

namespace gpuscope::analysis::replay_internal {

inline constexpr int64_t kNoFloor = std::numeric_limits<int64_t>::min();
// A GPU op that starts within this of its predecessor's end was queued behind it, so its
// observed launch-to-start time says nothing about the launch latency.
inline constexpr int64_t kQueuedSlackNs = 1'000;
// Launch latency when a device has no op that started on an idle stream (documented default).
inline constexpr int64_t kDefaultLaunchLatencyNs = 5'000;
// A thread idle (in no op, frame or call) this long between two calls was waiting for another
// thread (autograd's backward thread for the main one, a consumer for its producer).
inline constexpr int64_t kHandoffIdleNs = 20'000;
// A GPU op that started this much later than the op before it on its stream + the device's
// dispatch gap (queued, or not linked to a launch), or that found its stream idle but started
// this much later than its launch call + the
// device's usual latency, right after an op of another stream ended (within kStreamHandoffNs,
// or the device's typical launch latency when that is longer),
// waited for that op (an event wait between streams: cudaStreamWaitEvent, NCCL/RCCL syncs).
inline constexpr int64_t kLateStartNs = 10'000;
// Queued ops needed on a device to measure its dispatch gap (the 25th percentile of the gaps
// queued ops start after their predecessors end).
inline constexpr size_t kMinDispatchSamples = 8;
inline constexpr int64_t kStreamHandoffNs = 20'000;
// A launch call that starts this long after its GPU op is a clock disagreement, not a launch.
inline constexpr int64_t kMaxClockSkewNs = 1'000'000;

}  // namespace gpuscope::analysis::replay_internal
