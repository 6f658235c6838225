// memcpy-sync: copies that block the host - synchronous copy calls, async ones from/to pageable
// memory, async ones followed by a synchronize on the same thread.

#include <unordered_map>

#include "analysis/findings/rules/copy_helpers.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace memcpy_sync_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const auto& mo = t.memops;
  // The next call on the same thread: an async copy followed by a synchronize blocks too.
  std::vector<RowId> next_on_thread(t.api.size(), kNoRow);
  std::unordered_map<model::TrackId, RowId> last;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (t.api.domain[i] == model::ApiDomain::kOs) continue;
    auto it = last.find(t.api.track[i]);
    if (it != last.end()) next_on_thread[it->second] = static_cast<RowId>(i);
    last[t.api.track[i]] = static_cast<RowId>(i);
  }
  PinnedSpeed pinned(t);
  CopyGroup g;
  for (size_t m : c.WindowCopies()) {
    RowId l = mo.launch[m];
    if (l == kNoRow || claims.MemopTaken(m)) continue;
    std::string_view api = t.str(t.api.name[l]);
    if (!IsCopyApi(api)) continue;
    bool is_pageable = HostSide(mo.kind[m]) && HostMemory(t, m) == model::MemoryKind::kPageable;
    bool async = api.find("Async") != std::string_view::npos;
    RowId next = next_on_thread[l];
    bool then_sync = async && !is_pageable && next != kNoRow && IsSyncApi(t.str(t.api.name[next]));
    if ((async && !is_pageable && !then_sync) || !claims.TakeApi(l)) continue;
    claims.TakeMemop(m);
    g.Add(c, m, then_sync ? t.api.dur_ns[next] : t.api.dur_ns[l]);
    g.fix.unblock_api.push_back(l);
    claims.Explain(t.api.start_ns[l], t.api.end_ns(l));
    if (then_sync && claims.TakeApi(next)) {
      g.fix.unblock_api.push_back(next);
      g.api_ns += t.api.dur_ns[next];
      claims.Explain(t.api.start_ns[next], t.api.end_ns(next));
    }
    if (is_pageable) g.fix.memop_dur.emplace_back(m, pinned.Duration(m));
  }
  if (g.n == 0) return;
  g.fix.what =
      "pinned + non_blocking: the host no longer waits for these copies; pageable ones run at " +
      pinned.Basis();
  g.Emit(c, out, "memcpy-sync",
         base::Counted(g.n, "copy blocks", "copies block") + " the host (" + g.PerIteration(c) +
             "), " + base::FormatDuration(g.api_ns) + " in their calls");
}

}  // namespace
}  // namespace memcpy_sync_rule

const RuleInfo& MemcpySyncRule() {
  static const RuleInfo rule{
      .id = "memcpy-sync",
      .title = "Copies that block the host",
      .definition =
          "Copies launched by a synchronous API (cudaMemcpy, hipMemcpy, hipMemcpyWithStream, ...: "
          "no 'Async' in the name), by an async API from/to pageable memory (synchronous in "
          "practice), or by an async API whose next call on the same thread is a synchronize "
          "(stream/device/event).",
      .impact =
          "replayed: the host no longer waits for these copies (pinned + non_blocking); pageable "
          "ones run at the pinned bandwidth measured in the same trace (else at half their time).",
      .advice =
          "Use pinned host memory and async copies: tensor.pin_memory() / "
          "DataLoader(pin_memory=True) and .to(device, non_blocking=True).",
      .detect = &memcpy_sync_rule::Detect,
      .runtime_advice =
          "Use cudaMemcpyAsync on a non-default stream from pinned memory (cudaHostAlloc / "
          "cudaHostRegister), and wait on an event only where the host needs the data.",
      .limits =
          "asynchronous copies from or to pinned memory that no synchronize follows; copies that "
          "host-sync already holds (one root cause per event)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
