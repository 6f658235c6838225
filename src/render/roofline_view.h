#pragma once
// `gpuscope roofline` rendered: the table of op signatures (hot first) and the unmodelled ops, as
// a terminal report, CSV (the ops table) or the JSON contract
// {"source", "device": {...}, "kernel_ns", "modelled_ns", "ops": [{"op", "shape", "dtype",
//  "family", "calls", "flops", "bytes", "gpu_ns", "ideal_ns", "tflops", "tbps", "intensity",
//  "bound", "percent_of_bound", "kernels": [{"name", "count", "gpu_ns"}]}],
//  "unmodelled": [{"op", "calls", "kernels", "gpu_ns", "why"}]}.

#include <cstddef>
#include <string>

#include "analysis/roofline/roofline.h"
#include "model/trace.h"
#include "output/json_writer.h"

namespace gpuscope::render {

struct RooflineView {
  std::string path;
  std::string window;  // "" = whole trace
  size_t top = 0;      // ops rows in the terminal (0 = all)
  bool full_names = false;
};

std::string RooflineText(const model::Trace& t, const analysis::RooflineReport& r,
                         const RooflineView& v, size_t width);
std::string RooflineJson(const model::Trace& t, const analysis::RooflineReport& r,
                         const RooflineView& v);
std::string RooflineCsv(const analysis::RooflineReport& r);

// The "device" object of the JSON (also used by the report's data).
void WriteRooflineDevice(output::JsonWriter& w, const analysis::RooflineDevice& d);

}  // namespace gpuscope::render
