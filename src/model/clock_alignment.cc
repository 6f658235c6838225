#include "model/clock_alignment.h"

#include <algorithm>
#include <map>

namespace gpuscope::model {

std::vector<ClockShift> LaunchClockShifts(const Trace& t) {
  std::map<int, int64_t> lead;  // device -> largest lead of an op over its launch call
  auto scan = [&](const SliceColumns& ops, const std::vector<RowId>& launch,
                  const std::vector<int16_t>& device) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (launch[i] == kNoRow) continue;
      const int64_t ahead = t.api.start_ns[launch[i]] - ops.start_ns[i];
      if (ahead > 0) lead[device[i]] = std::max(lead[device[i]], ahead);
    }
  };
  scan(t.kernels, t.kernels.launch, t.kernels.device);
  scan(t.memops, t.memops.launch, t.memops.device);
  std::vector<ClockShift> out;
  for (const auto& [device, ns] : lead) out.push_back({device, ns});
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
