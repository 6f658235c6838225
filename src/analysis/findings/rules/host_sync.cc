// host-sync: host synchronisations inside the steady state, with the copy that forced them.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace host_sync_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  struct Sync {
    int64_t s, e;
    std::string what;
    Where where;
    int64_t dtoh_bytes = -1;
    RowId op = kNoRow;
    std::vector<RowId> calls;  // the runtime calls that wait (the sync, .item()'s copy)
  };
  std::vector<Sync> syncs;
  std::unordered_map<RowId, size_t> by_op;
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (!c.In(t.cpu.start_ns[i]) || !IsItemOp(t.str(t.cpu.name[i]))) continue;
    RowId p = t.cpu.parent[i];
    if (p != kNoRow && IsItemOp(t.str(t.cpu.name[p]))) continue;  // _local_scalar_dense inside item
    Sync s{t.cpu.start_ns[i],
           t.cpu.end_ns(i),
           std::string(t.str(t.cpu.name[i])),
           {},
           -1,
           static_cast<RowId>(i),
           {}};
    s.where.op = s.what;
    s.where.python = c.at().PythonOf(static_cast<RowId>(i));
    by_op[static_cast<RowId>(i)] = syncs.size();
    syncs.push_back(std::move(s));
  }
  for (size_t i = 0; i < t.api.size(); ++i) {
    std::string_view n = t.str(t.api.name[i]);
    if (!c.In(t.api.start_ns[i]) || t.api.domain[i] == model::ApiDomain::kOs) continue;
    bool inside_item = false;
    for (RowId r = t.api.enclosing_op[i]; r != kNoRow && !inside_item; r = t.cpu.parent[r]) {
      auto it = by_op.find(r);
      if (it == by_op.end()) continue;
      inside_item = true;
      if ((IsSyncApi(n) || IsCopyApi(n)) && claims.TakeApi(i))
        syncs[it->second].calls.push_back(static_cast<RowId>(i));
    }
    if (inside_item || !IsSyncApi(n) || !claims.TakeApi(i)) continue;
    Sync s{t.api.start_ns[i],
           t.api.end_ns(i),
           std::string(n),
           c.at().Api(static_cast<RowId>(i)),
           -1,
           kNoRow,
           {static_cast<RowId>(i)}};
    if (s.where.op.empty()) s.where.op = s.what;
    syncs.push_back(std::move(s));
  }
  if (syncs.empty()) return;
  // The small device-to-host copy each .item() forced.
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (t.memops.kind[m] != model::MemopKind::kDtoH || t.memops.launch[m] == kNoRow) continue;
    for (RowId r = t.api.enclosing_op[t.memops.launch[m]]; r != kNoRow; r = t.cpu.parent[r]) {
      auto it = by_op.find(r);
      if (it != by_op.end()) {
        syncs[it->second].dtoh_bytes = std::max<int64_t>(0, t.memops.bytes[m]);
        claims.TakeMemop(m);  // the copy is part of the sync, not a copy to prefetch
        break;
      }
    }
  }
  std::map<std::pair<std::string, std::string>, std::vector<const Sync*>> groups;
  for (const auto& s : syncs) groups[{s.where.python, s.what}].push_back(&s);
  for (auto& [key, list] : groups) {
    Candidate cand{Make(c, "host-sync", 0), {}};
    Finding& f = cand.finding;
    f.where.python = key.first;
    f.where.op = list.front()->where.op;
    size_t with_copy = 0;
    int64_t bytes = 0, held = 0;
    for (const Sync* s : list) {
      if (s->dtoh_bytes >= 0) ++with_copy, bytes += s->dtoh_bytes;
      held += s->e - s->s;
      claims.Explain(s->s, s->e);
      cand.fix.unblock_api.insert(cand.fix.unblock_api.end(), s->calls.begin(), s->calls.end());
    }
    f.detail = base::FormatCount(list.size()) + " x " + key.second + " (" +
               c.PerIterationText(static_cast<double>(list.size())) + ")" +
               (with_copy ? ", " + base::FormatCount(with_copy) + " with a device-to-host copy (" +
                                base::FormatBytes(bytes) + ")"
                          : "") +
               ", host held " + base::FormatDuration(held);
    cand.fix.what = "the host no longer waits in these calls (the value stays on the device)";
    // A CPU-only run (no GPU work, no runtime call inside these reads): they wait for nothing
    // here, so they are information, not a synchronization to price; on a GPU they would block.
    const bool cpu_only = c.devices() == 0 && std::all_of(list.begin(), list.end(), [](auto* s) {
                            return s->calls.empty() && s->op != kNoRow;
                          });
    if (cpu_only) {
      f.severity = Severity::kInfo;
      f.title = "Host reads of a tensor's value (would block on a GPU; CPU-only run)";
      f.detail += "; would block on a GPU until the work queued before it finishes";
      cand.fix = {};
    }
    std::vector<const Sync*> by_len(list.begin(), list.end());
    std::sort(by_len.begin(), by_len.end(),
              [](const Sync* a, const Sync* b) { return a->e - a->s > b->e - b->s; });
    for (const Sync* s : by_len) {
      AddEvidence(
          c, f, s->s, s->e - s->s,
          s->what + (s->dtoh_bytes >= 0 ? " + DtoH " + base::FormatBytes(s->dtoh_bytes) : ""));
    }
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace host_sync_rule

const RuleInfo& HostSyncRule() {
  static const RuleInfo rule{
      .id = "host-sync",
      .title = "Host synchronizations inside the steady state",
      .definition =
          "aten::item / aten::_local_scalar_dense (from .item(), .cpu(), .tolist(), nonzero) and "
          "explicit synchronizations (cuda/hipStreamSynchronize, cuda/hipDeviceSynchronize, "
          "cuda/hipEventSynchronize) inside the steady window, paired with the small "
          "device-to-host copy launched inside them. Listed even when cheap (on a CPU-only run an "
          ".item() costs microseconds; on a GPU it drains the pipeline); on a run without GPU "
          "work they are information (info, unpriced): they would block on a GPU.",
      .impact =
          "replayed: the calls no longer wait for the GPU (the value stays on the device). A sync "
          "that waited for nothing (a double-buffered event sync) saves nothing.",
      .advice =
          "Keep values on the device (compare tensors instead of calling .item()), move "
          "logging/metrics off the step or do them every N steps, and replace explicit synchronize "
          "calls by stream events.",
      .detect = &host_sync_rule::Detect,
      .listing = RuleInfo::Listing::kAlwaysListed,
      .runtime_advice =
          "Synchronize less: wait on an event for the work the host needs (cudaEventRecord + "
          "cudaEventSynchronize, or cudaStreamWaitEvent between streams) instead of "
          "cudaDeviceSynchronize / cudaStreamSynchronize, keep decisions on the device, and read "
          "results back every N iterations.",
      .limits =
          "synchronizations outside the steady window; an asynchronous copy that no synchronize "
          "follows (memcpy-in-loop's); the synchronize inside an .item(), counted once as the "
          ".item()."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
