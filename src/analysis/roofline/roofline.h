#pragma once
// Roofline: how close each op's kernels came to what the device can do. Every kernel is charged
// to the innermost framework op around its launch that has a work model
// (analysis/work/work_models.h; graph-replayed kernels through their captured op,
// analysis/attribution/graph_attribution.h); the op's FLOPs and bytes from its recorded shapes,
// against the device's peaks (analysis/work/device_peaks.h), give the time the op would take at the
// roof:
//
//   ideal_ns = max(flops / peak_flops, bytes / peak_bandwidth)
//   percent_of_bound = 100 x ideal_ns / gpu_ns      (gpu_ns: the op's kernels' summed time)
//
// and the bound is compute when the first term is the larger. Kernels with no modelled op, or
// whose op's shapes say too little, are counted in `unmodelled` with the reason.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/work/device_peaks.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// No kernel gets faster than this, whatever its work: its fixed cost (dispatch, ramp-up, tail)
// is a couple of microseconds on every GPU here (kernel-efficiency's bound, whatif --device's).
inline constexpr int64_t kKernelFixedCostNs = 2'000;

struct RooflineOptions {
  std::string device;  // --device: overrides the trace's device ("" = identify it)
  // Another device to price each modelled call on too (RooflineReport::kernel_target_ideal_ns):
  // whatif --device.
  const DevicePeaks* target = nullptr;
  int64_t window_start = INT64_MIN, window_end = INT64_MAX;  // kernels launched inside
};

struct RooflineKernel {
  std::string name;  // as recorded (mangled names are demangled by the views)
  uint64_t count = 0;
  int64_t gpu_ns = 0;
};

// One (op, shape, dtype): the calls with that signature, summed.
struct RooflineOp {
  std::string op, shape, dtype, family;
  uint64_t calls = 0;
  double flops = 0, bytes = 0;
  int64_t gpu_ns = 0;
  double ideal_ns = 0;  // at the roof
  double tflops = 0, tbps = 0, intensity = 0;
  std::string bound;  // "compute" / "memory"
  double percent_of_bound = 0;
  std::vector<RooflineKernel> kernels;  // by time, largest first
};

struct RooflineUnmodelled {
  std::string op;  // the innermost op around the launch ("(no CPU op)" when none)
  uint64_t calls = 0, kernels = 0;
  int64_t gpu_ns = 0;
  std::string why;
};

struct RooflineDevice {
  const DevicePeaks* peaks = nullptr;  // nullptr: unknown (percentages cannot be given)
  std::string trace_name;              // the name the trace gives ("" when none)
  std::string how;                     // "named in the trace", "--device", why unknown
};

struct RooflineReport {
  RooflineDevice device;
  std::vector<RooflineOp> ops;  // by gpu_ns, largest first
  std::vector<RooflineUnmodelled> unmodelled;
  int64_t kernel_ns = 0;    // every kernel in the window
  int64_t modelled_ns = 0;  // the kernels charged to a modelled op
  // Per kernel row: the index into `ops` of its op's signature (-1: unmodelled / outside the
  // window), and its share of that call's ideal time (ideal_ns x its time / the call's time).
  std::vector<int32_t> kernel_op;
  std::vector<double> kernel_ideal_ns;
  std::vector<double> kernel_target_ideal_ns;  // the same on RooflineOptions::target
};

// The device the kernels ran on: RooflineOptions::device, else the trace's device with the most
// kernel time; its peaks, where known.
RooflineDevice PickRooflineDevice(const model::Trace& t, const RooflineOptions& o);

// `graphs` may be null (graph-replayed kernels are then unmodelled).
RooflineReport ComputeRoofline(const model::Trace& t, const RooflineOptions& o,
                               const GraphAttribution* graphs);

}  // namespace gpuscope::analysis
