#include "analysis/roofline/projection.h"

#include <algorithm>
#include <cmath>

#include "analysis/roofline/roofline.h"

namespace gpuscope::analysis {

DeviceProjection ProjectOntoDevice(const model::Trace& t, const GraphAttribution* graphs,
                                   const std::string& to, int64_t w0, int64_t w1) {
  DeviceProjection p;
  p.to = FindDevice(to);
  if (!p.to) {
    p.error = "--device " + to + ": not a known device";
    return p;
  }
  RooflineOptions o;
  o.target = p.to;
  o.window_start = w0, o.window_end = w1;
  RooflineReport r = ComputeRoofline(t, o, graphs);
  p.from = r.device.peaks;
  if (!p.from) {
    p.error = "the trace's device is not identified (" + r.device.how +
              "): its kernels cannot be projected onto " + std::string(p.to->name);
    return p;
  }
  const double hbm = p.to->hbm_tbps > 0 ? p.from->hbm_tbps / p.to->hbm_tbps : 1;
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.start_ns[i] < w0 || k.start_ns[i] >= w1) continue;
    double factor = hbm;
    if (r.kernel_op[i] >= 0 && r.kernel_ideal_ns[i] > 0) {
      factor = r.kernel_target_ideal_ns[i] / r.kernel_ideal_ns[i];
      ++p.modelled;
    } else {
      ++p.unmodelled;
    }
    int64_t d = k.dur_ns[i];
    auto projected = static_cast<int64_t>(std::llround(static_cast<double>(d) * factor));
    // A kernel within its fixed cost is all fixed cost: it keeps its time.
    p.kernel_dur.emplace_back(
        i, d <= kKernelFixedCostNs ? d : std::max(projected, kKernelFixedCostNs));
  }
  return p;
}

}  // namespace gpuscope::analysis
