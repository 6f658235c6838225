#include "model/clock_alignment.h"

#include <algorithm>
#include <climits>
#include <map>

namespace gpuscope::model {

std::vector<ClockShift> LaunchClockShifts(const Trace& t) {
  std::map<int, int64_t> lead;     // device -> largest lead of an op over its launch call
  std::map<int, int64_t> max_end;  // device -> latest end of its GPU events
  auto end = [](const SliceColumns& s, size_t i) {
    int64_t e = INT64_MAX;  // an end past the clock's range: that device is never shifted
    __builtin_add_overflow(s.start_ns[i], s.dur_ns[i], &e);
    return e;
  };
  auto scan = [&](const SliceColumns& ops, const std::vector<RowId>& launch,
                  const std::vector<int16_t>& device) {
    for (size_t i = 0; i < ops.size(); ++i) {
      max_end[device[i]] = std::max(max_end[device[i]], end(ops, i));
      if (launch[i] == kNoRow) continue;
      int64_t ahead = 0;
      if (__builtin_sub_overflow(t.api.start_ns[launch[i]], ops.start_ns[i], &ahead)) continue;
      if (ahead > 0) lead[device[i]] = std::max(lead[device[i]], ahead);
    }
  };
  scan(t.kernels, t.kernels.launch, t.kernels.device);
  scan(t.memops, t.memops.launch, t.memops.device);
  for (size_t i = 0; i < t.gpu_ranges.size(); ++i) {
    const int device = t.tracks[t.gpu_ranges.track[i]].device;
    max_end[device] = std::max(max_end[device], end(t.gpu_ranges, i));
  }
  std::vector<ClockShift> out;
  for (const auto& [device, ns] : lead) {
    int64_t shifted = 0;  // a shift that would carry an event past the clock's range is not made
    if (!__builtin_add_overflow(max_end[device], ns, &shifted)) out.push_back({device, ns});
  }
  return out;
}

uint64_t ShiftGpuClocks(Trace& t, const std::vector<ClockShift>& shifts) {
  uint64_t moved = 0;
  for (const ClockShift& s : shifts) {
    for (size_t i = 0; i < t.kernels.size(); ++i)
      if (t.kernels.device[i] == s.device) t.kernels.start_ns[i] += s.shift_ns, ++moved;
    for (size_t i = 0; i < t.memops.size(); ++i)
      if (t.memops.device[i] == s.device) t.memops.start_ns[i] += s.shift_ns, ++moved;
    for (size_t i = 0; i < t.gpu_ranges.size(); ++i) {
      if (t.tracks[t.gpu_ranges.track[i]].device == s.device)
        t.gpu_ranges.start_ns[i] += s.shift_ns, ++moved;
    }
  }
  return moved;
}

}  // namespace gpuscope::model
