#pragma once
// A GPU runtime's allocation records (rocprofv3's memory-allocation trace, rocpd's
// rocpd_memory_allocate) as the model's device memory events: an allocation on a GPU agent adds
// its bytes, a free removes the bytes of the block allocated at its address (the records give a
// free no size, or 0). Host allocations, frees of blocks allocated before the trace and virtual
// reservations are counted, not modelled. The events carry no allocator totals: the timeline
// is the running sum from the trace's start.

#include <cstdint>
#include <unordered_map>

#include "model/trace.h"

namespace gpuscope::import {

// The host thread of each runtime call, by its correlation id: where an allocation record that
// names only its call is placed (rocprofv3's CSV, nsys).
std::unordered_map<uint64_t, model::TrackId> ApiThreadsByCorrelation(const model::Trace& t);

class AllocationRecords {
 public:
  explicit AllocationRecords(model::Trace* t) : t_(*t) {}

  // `device`: the GPU the block is on, -1 for a host agent (or an agent that is not a GPU).
  void Allocate(int64_t ts, model::TrackId track, int device, uint64_t addr, int64_t bytes);
  void Free(int64_t ts, model::TrackId track, uint64_t addr);
  // A record of another level (virtual memory, scratch): counted under `what`.
  void NotModelled(const char* what) { ++t_.record_counts[what]; }

 private:
  model::Trace& t_;
  // Live GPU blocks: address -> (device, bytes).
  std::unordered_map<uint64_t, std::pair<int16_t, int64_t>> live_;
};

}  // namespace gpuscope::import
