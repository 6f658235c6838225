#pragma once
// The even spacing a ROCm tracer puts between the kernels of a graph replay it serialises to time
// them (issue 51: rocprofv3 kernel tracing spaces graph-replayed kernels ~5 us apart, a 24 ms run
// shows as 38-41 ms). Health's `tracer-overhead` note reports it; `whatif --without-tracer`
// replays the run with the graph's own dispatch gap instead.

#include <cstdint>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// A graph's own gap between the kernels it replays, without a tracer (about 1 us).
inline constexpr int64_t kGraphDispatchNs = 1'000;

struct TracerSpacing {
  uint64_t gaps = 0;           // gaps between kernels of one graph launch on one stream
  int64_t extra_ns = 0;        // their time beyond kGraphDispatchNs each
  int64_t median = 0;          // the median gap
  std::vector<size_t> spaced;  // kernel rows that follow a spaced gap
  bool found() const { return gaps > 0; }
};

// From ROCm tracers only (rocprofv3, rocpd, .rpd, rocprof): at least 100 such gaps, a median of
// 3 us or more, four in five of them within half of the median. Not found otherwise.
TracerSpacing FindTracerSpacing(const model::Trace& t);

}  // namespace gpuscope::analysis
