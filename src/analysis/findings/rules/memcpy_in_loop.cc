// memcpy-in-loop: the host<->device copies of every iteration that no earlier rule explains.

#include <unordered_map>

#include "analysis/findings/rules/copy_helpers.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace memcpy_in_loop_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  if (c.steady().iterations.empty()) return;
  const auto& mo = c.t().memops;
  CopyGroup g;
  for (size_t m : c.WindowCopies()) {
    if (!HostSide(mo.kind[m]) || !claims.TakeMemop(m)) continue;
    g.Add(c, m, mo.dur_ns[m]);
    g.fix.prefetch_memops.push_back(m);
  }
  if (g.n == 0) return;
  g.fix.what = "prefetched on a side stream: the work after each copy no longer waits for it";
  g.Emit(c, out, "memcpy-in-loop",
         base::Counted(g.n, "host<->device copy", "host<->device copies") + " (" +
             g.PerIteration(c) + "), " + base::FormatBytes(g.bytes) + ", " +
             base::FormatDuration(g.ns) + " on the GPU");
}

}  // namespace
}  // namespace memcpy_in_loop_rule

const RuleInfo& MemcpyInLoopRule() {
  static const RuleInfo rule{
      .id = "memcpy-in-loop",
      .title = "Host <-> device copies in every iteration",
      .definition = "HtoD and DtoH copies inside steady-state iterations.",
      .impact =
          "replayed: the copies move to a side stream, issued ahead (prefetch): the work after "
          "them on their stream no longer waits for them and the host does not wait either.",
      .advice =
          "Move data once: keep model inputs/weights on the device, prefetch the next batch while "
          "this one runs (DataLoader(pin_memory=True) + .to(device, non_blocking=True) on a side "
          "stream).",
      .detect = &memcpy_in_loop_rule::Detect,
      .runtime_advice =
          "Move data once: keep inputs and buffers resident on the device across iterations, and "
          "stream the next input on a second stream with cudaMemcpyAsync from pinned memory "
          "(cudaHostAlloc) while this iteration's kernels run.",
      .limits =
          "copies outside the steady iterations (weights loaded before the loop); device-to-device "
          "copies; copies an earlier copy rule holds."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
