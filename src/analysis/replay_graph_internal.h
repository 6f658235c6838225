#pragma once
// The constants and small helpers the replay graph's files share (internal to src/analysis).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

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
// A GPU op that found its stream idle but started this much later than its launch call + the
// device's usual latency, right after an op of another stream ended (within kStreamHandoffNs),
// waited for that op (an event wait between streams: cudaStreamWaitEvent, NCCL/RCCL syncs).
inline constexpr int64_t kLateStartNs = 10'000;
inline constexpr int64_t kStreamHandoffNs = 5'000;
// A launch call that starts this long after its GPU op is a clock disagreement, not a launch.
inline constexpr int64_t kMaxClockSkewNs = 1'000'000;

inline bool CanBlock(std::string_view n) {
  return n.find("Synchronize") != std::string_view::npos ||
         n.find("Memcpy") != std::string_view::npos || n.find("memcpy") != std::string_view::npos;
}

inline bool IsDataLoading(std::string_view n) {
  return n.find("DataLoader") != std::string_view::npos ||
         n.find("dataloader") != std::string_view::npos;
}

inline int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) {
  return std::max<int64_t>(0, std::min(e, b) - std::max(s, a));
}

}  // namespace gpuscope::analysis::replay_internal
