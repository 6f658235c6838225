#include "analysis/replay/what_if.h"

#include <algorithm>

#include "base/text.h"

namespace gpuscope::analysis {

void WhatIf::Merge(const WhatIf& o) {
  auto cat = [](auto& a, const auto& b) { a.insert(a.end(), b.begin(), b.end()); };
  cat(unblock_api, o.unblock_api);
  cat(api_dur, o.api_dur);
  cat(kernel_dur, o.kernel_dur);
  cat(memop_dur, o.memop_dur);
  cat(prefetch_memops, o.prefetch_memops);
  cat(graph_kernels, o.graph_kernels);
  cat(host_scale, o.host_scale);
  cat(typical_latency, o.typical_latency);
  cat(typical_latency_memops, o.typical_latency_memops);
  cat(kernel_gap, o.kernel_gap);
  cat(stream_waits_dropped, o.stream_waits_dropped);
  cat(kernels_removed, o.kernels_removed);
  cat(memops_removed, o.memops_removed);
}

size_t WhatIf::Edits() const {
  return unblock_api.size() + api_dur.size() + kernel_dur.size() + memop_dur.size() +
         prefetch_memops.size() + graph_kernels.size() + host_scale.size() +
         typical_latency.size() + typical_latency_memops.size() + kernel_gap.size() +
         stream_waits_dropped.size() + kernels_removed.size() + memops_removed.size();
}

void WhatIf::SortHostSpans() {
  auto before = [](const HostScale& a, const HostScale& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(host_scale.begin(), host_scale.end(), before))
    std::stable_sort(host_scale.begin(), host_scale.end(), before);
}

std::string WhatIf::Describe() const {
  std::string out;
  auto part = [&](size_t n, const char* label) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += base::FormatCount(n);
    out += ' ';
    out += label;
  };
  part(unblock_api.size(), "calls stop waiting for the GPU");
  part(api_dur.size(), "calls shortened");
  part(kernel_dur.size(), "kernel durations changed");
  part(memop_dur.size(), "copy durations changed");
  part(prefetch_memops.size(), "copies prefetched on a side stream");
  part(graph_kernels.size(), "kernels launched back to back");
  part(host_scale.size(), "host spans scaled");
  part(typical_latency.size() + typical_latency_memops.size(), "launches at the typical latency");
  part(kernel_gap.size(), "kernel gaps changed");
  part(stream_waits_dropped.size(), "kernels stop waiting for another stream");
  part(kernels_removed.size(), "kernels removed");
  part(memops_removed.size(), "copies removed");
  return out.empty() ? "nothing" : out;
}

}  // namespace gpuscope::analysis
