#pragma once
// Device memory over time, from a framework allocator's events (model::MemoryEventTable:
// PyTorch's [memory] events): per device the peak of allocated and of reserved bytes and when,
// who held the memory at the peak (the blocks alive then, by the op and the Python line that
// allocated them), and the allocated bytes at the end of each steady step - memory that grows
// step after step is a leak or growing shapes.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The blocks alive at the peak that one op allocated from one Python line.
struct MemoryHolder {
  std::string op;      // the deepest CPU range around the allocation ("" outside any)
  std::string python;  // the innermost user frame around it ("" unknown)
  int64_t bytes = 0;
  uint64_t blocks = 0;
};

// The allocator at the end of one steady step.
struct MemoryStep {
  int64_t iteration = 0;
  int64_t end_ns = 0;
  int64_t allocated_bytes = 0;  // after the step's last event (or before, when it has none)
  uint64_t allocations = 0;     // allocations made during the step
  int64_t allocated_in_step_bytes = 0;
};

// One point of the memory chart: the allocated bytes (and reserved, -1 unknown) after an event.
struct MemoryPoint {
  int64_t ts_ns = 0;
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = -1;
};

struct DeviceMemory {
  int device = 0;
  uint64_t events = 0, allocations = 0, frees = 0;
  // Whether the events carry the allocator's totals; without them allocated bytes are the
  // running sum from the trace's start (blocks allocated before it are not seen).
  bool totals_recorded = false;
  int64_t peak_allocated_bytes = 0, peak_at_ns = 0;
  int64_t peak_reserved_bytes = -1, peak_reserved_at_ns = 0;  // -1: not recorded
  int64_t final_allocated_bytes = 0;
  // Alive at the peak, largest first; blocks allocated before the trace are one holder named
  // "(allocated before the trace)".
  std::vector<MemoryHolder> holders;
  std::vector<MemoryStep> steps;
  // (allocated at the last steady step's end - at the first's) / (steps - 1), when allocated
  // bytes never fell from one step's end to the next over at least 3 steps; else 0.
  int64_t growth_per_step_bytes = 0;
  // Blocks allocated during the steady steps and still alive at the last one's end, by place,
  // largest first (what a growth keeps); empty without steps or addresses.
  std::vector<MemoryHolder> kept;
  // Allocated bytes over time for a chart: the trace's span cut into at most
  // kMemorySeriesPoints buckets, each the point of its highest allocation (peaks survive).
  std::vector<MemoryPoint> series;
};

inline constexpr size_t kMemorySeriesPoints = 600;

struct MemoryTimeline {
  std::vector<DeviceMemory> devices;  // by device number
};

class Attributor;

// `holders`: how many holders each device lists (the rest are summed into the last row). `at`:
// the trace's attribution when the caller has one (analyze's), else one is made.
MemoryTimeline BuildMemoryTimeline(const model::Trace& t, const SteadyState& steady,
                                   size_t holders = 10, const Attributor* at = nullptr);

}  // namespace gpuscope::analysis
