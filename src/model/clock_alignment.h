#pragma once
// --align-clocks: a GPU op cannot start before the call that launched it began. When a device's
// ops do, its clock disagrees with the host's (a known ROCm / Kineto trap); the shift that makes
// every one of them start at or after its launch is the correction. The linker applies it (an
// import option, ImportOptions::align_clocks) once launches are linked and before anything else
// is built on the times, and records it in TraceMetadata::clock_shifts. Only this unambiguous case
// is corrected: kernels that run against their launch order (impossible.launch_order) are linked
// wrong or timed by a clock that jumped, which no shift repairs.

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace gpuscope::model {

// Per device whose ops start before their launch call began: the largest such lead, the shift
// that puts the worst op exactly at its launch. Needs launch links (LinkLaunches).
std::vector<ClockShift> LaunchClockShifts(const Trace& t);

// Adds each shift to its device's kernels, copies and GPU ranges; returns the events moved. The
// tables are left to be sorted again (a shift of one device reorders it among the others).
uint64_t ShiftGpuClocks(Trace& t, const std::vector<ClockShift>& shifts);

}  // namespace gpuscope::model
