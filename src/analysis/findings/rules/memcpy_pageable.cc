// memcpy-pageable: host<->device copies from/to pageable memory that no earlier rule (a
// blocking copy) explains.

#include <unordered_map>

#include "analysis/findings/rules/copy_helpers.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace memcpy_pageable_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& mo = t.memops;
  PinnedSpeed pinned(t);
  CopyGroup g;
  for (size_t m : c.WindowCopies()) {
    if (!HostSide(mo.kind[m]) || HostMemory(t, m) != model::MemoryKind::kPageable ||
        !claims.TakeMemop(m))
      continue;
    g.Add(c, m, mo.dur_ns[m]);
    g.fix.memop_dur.emplace_back(m, pinned.Duration(m));
    if (mo.launch[m] != kNoRow && claims.TakeApi(mo.launch[m]))
      g.fix.unblock_api.push_back(mo.launch[m]);
  }
  if (g.n == 0) return;
  g.fix.what = "pinned host memory: the copies run at " + pinned.Basis();
  g.Emit(c, out, "memcpy-pageable",
         base::Counted(g.n, "copy", "copies") + " from/to pageable memory, " +
             base::FormatBytes(g.bytes) + ", " + base::FormatDuration(g.ns) + " on the GPU");
}

}  // namespace
}  // namespace memcpy_pageable_rule

const RuleInfo& MemcpyPageableRule() {
  static const RuleInfo rule{
      .id = "memcpy-pageable",
      .title = "Copies from or to pageable memory",
      .definition =
          "HtoD/DtoH copies whose host side the trace records as pageable (CUDA traces, nsys "
          "memory kinds). ROCm tracers do not record pinning: there the summary says 'unknown' and "
          "this rule stays silent.",
      .impact =
          "replayed: the copies run at the pinned bandwidth measured in the same trace, else at "
          "half their time (pageable copies are staged through a pinned buffer, typically at about "
          "half the pinned bandwidth).",
      .advice =
          "Pin the host buffers: DataLoader(pin_memory=True), tensor.pin_memory(), "
          "cudaHostAlloc/hipHostMalloc.",
      .detect = &memcpy_pageable_rule::Detect,
      .runtime_advice =
          "Pin the host buffers: allocate them with cudaHostAlloc (cudaMallocHost), or register "
          "existing ones with cudaHostRegister.",
      .limits =
          "copies the trace records as pinned or does not record (ROCm); device-to-device copies; "
          "copies an earlier copy rule holds."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
