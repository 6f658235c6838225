#include "import/common/allocation_records.h"

namespace gpuscope::import {

std::unordered_map<uint64_t, model::TrackId> ApiThreadsByCorrelation(const model::Trace& t) {
  std::unordered_map<uint64_t, model::TrackId> out;
  for (size_t i = 0; i < t.api.size(); ++i) out.emplace(t.api.correlation[i], t.api.track[i]);
  return out;
}

void AllocationRecords::Allocate(int64_t ts, model::TrackId track, int device, uint64_t addr,
                                 int64_t bytes) {
  if (device < 0) {
    ++t_.record_counts["host memory allocations (not device memory)"];
    return;
  }
  if (bytes <= 0) {
    ++t_.record_counts["device allocations of no size (not modelled)"];
    return;
  }
  model::MemoryEventRow r;
  r.ts_ns = ts, r.bytes = bytes, r.addr = addr, r.track = track;
  r.device = static_cast<int16_t>(device);
  if (addr != 0) live_[addr] = {r.device, bytes};
  t_.memory.Append(r);
}

void AllocationRecords::Free(int64_t ts, model::TrackId track, uint64_t addr) {
  auto it = live_.find(addr);
  if (it == live_.end()) {
    // A host block, or one allocated before the trace: its size is not known.
    ++t_.record_counts["frees of blocks not allocated on a GPU in the trace"];
    return;
  }
  model::MemoryEventRow r;
  r.ts_ns = ts, r.bytes = -it->second.second, r.addr = addr, r.track = track;
  r.device = it->second.first;
  live_.erase(it);
  t_.memory.Append(r);
}

}  // namespace gpuscope::import
