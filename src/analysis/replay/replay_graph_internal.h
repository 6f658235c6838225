#pragma once
// The constants the replay graph's files share (internal to src/analysis), with the name and
// interval helpers they use.

#include <cstdint>
#include <limits>

#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "analysis/replay/replay_graph.h"

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
// Queued ops needed on a device to measure its dispatch gap (the 25th percentile of the gaps
// queued ops start after their predecessors end).
inline constexpr size_t kMinDispatchSamples = 8;
using analysis::kLateStartNs;
using analysis::kStreamHandoffNs;
// A launch call that starts this long after its GPU op is a clock disagreement, not a launch.
inline constexpr int64_t kMaxClockSkewNs = 1'000'000;
// A synchronizing call that returned before the op it waited for ended, by the GPU's timestamps:
// the two clocks disagree by a few us (a sync returns a few us after its op ends).
inline constexpr int64_t kSyncSkewNs = 10'000;

}  // namespace gpuscope::analysis::replay_internal
