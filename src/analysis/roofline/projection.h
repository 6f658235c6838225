#pragma once
// `whatif --device NAME`: the run's kernels projected onto another GPU through the roofline's
// work models. A modelled call keeps its share of the roof: its kernels take their time x the
// call's time at the roof on the target / at the roof on the trace's device (compute-bound work
// scales with the peak FLOP/s of its data type, memory-bound work with HBM bandwidth, and a call
// may change sides). A kernel without a model scales as memory-bound work (HBM bandwidth). No
// kernel gets shorter than its fixed cost (kKernelFixedCostNs), and one within it keeps its
// time. Copies, launch costs, latencies and host work are unchanged.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/work/device_peaks.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct DeviceProjection {
  const DevicePeaks* from = nullptr;  // the trace's device (identified as roofline does)
  const DevicePeaks* to = nullptr;
  std::vector<std::pair<size_t, int64_t>> kernel_dur;  // kernel row -> projected duration
  uint64_t modelled = 0, unmodelled = 0;               // kernels projected each way
  std::string error;  // why there is no projection (the trace's device unknown, ...)
};

// The kernels launched or running in [w0, w1) projected onto `to` (a --device name).
DeviceProjection ProjectOntoDevice(const model::Trace& t, const GraphAttribution* graphs,
                                   const std::string& to, int64_t w0, int64_t w1);

}  // namespace gpuscope::analysis
