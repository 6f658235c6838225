// small-memcpy: many small copies per iteration, each paying a call.

#include <map>
#include <unordered_map>

#include "analysis/findings/rules/copy_helpers.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace small_memcpy_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& mo = t.memops;
  CopyGroup g;
  std::map<int64_t, size_t> per_iteration;
  std::vector<size_t> all;
  for (size_t m : c.WindowCopies()) {
    RowId l = mo.launch[m];
    if (mo.bytes[m] < 0 || mo.bytes[m] >= c.o().small_copy_bytes || l == kNoRow ||
        claims.ApiTaken(l))
      continue;
    g.Add(c, m, t.api.dur_ns[l]);
    all.push_back(m);
    // Batched into one copy per iteration: every call but the first goes away.
    if (per_iteration[c.Iteration(mo.start_ns[m])]++ > 0) {
      g.fix.api_dur.emplace_back(l, 0);
      g.fix.unblock_api.push_back(l);
    }
  }
  if (g.n == 0 || c.PerIteration(static_cast<double>(g.n)) < c.o().small_copies_per_iteration)
    return;
  for (size_t m : all) claims.TakeApi(mo.launch[m]), claims.TakeMemop(m);
  g.fix.what = "batched: one copy call per iteration instead of each of these";
  g.Emit(c, out, "small-memcpy",
         base::Counted(g.n, "copy", "copies") + " < " + base::FormatBytes(c.o().small_copy_bytes) +
             " (" + g.PerIteration(c) + "), " + base::FormatDuration(g.api_ns) + " in their calls");
}

}  // namespace
}  // namespace small_memcpy_rule

const RuleInfo& SmallMemcpyRule() {
  static const RuleInfo rule{
      .id = "small-memcpy",
      .title = "Many small copies per iteration",
      .definition = "More than the threshold of copies smaller than --small-copy-kb per iteration.",
      .impact =
          "replayed: every copy call but the first of each iteration costs nothing (one batched "
          "copy); the copies' GPU time is kept.",
      .advice =
          "Batch the small tensors into one buffer (torch.cat / a preallocated staging tensor) and "
          "copy once.",
      .options = {{"--small-copies", "small-memcpy: copies per iteration", 8,
                   [](AnalyzeOptions& o, double v) { o.small_copies_per_iteration = v; }},
                  {"--small-copy-kb", "small-memcpy: copies smaller than this (KiB)", 64,
                   [](AnalyzeOptions& o, double v) {
                     o.small_copy_bytes = static_cast<int64_t>(v * 1024);
                   }}},
      .detect = &small_memcpy_rule::Detect,
      .runtime_advice =
          "Pack the small transfers into one pinned buffer (cudaHostAlloc) and move it with one "
          "cudaMemcpyAsync.",
      .limits =
          "fewer small copies per iteration than the threshold; copies an earlier rule holds (a "
          "blocking pageable copy is memcpy-sync's)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
