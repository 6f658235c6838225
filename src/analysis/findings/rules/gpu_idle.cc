// gpu-idle: the GPU idle gaps that no finding above explains, grouped by what the host did.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/findings/place_advice.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace gpu_idle_rule {
namespace {

// The gaps of one cause ("CPU op: aten::nonzero", "launch late", ...).
struct Cause {
  std::string_view name;  // a view into the Context's causes
  int64_t ns = 0;
  std::vector<const Gap*> gaps;
};

// Every gap no finding above explains, by cause, the costliest first.
std::vector<Cause> CausesOfGaps(const Context& c, Claims& claims) {
  std::map<std::string_view, Cause> by_cause;
  // Each cause by its text's id (one text, one id), read once: a gap costs a hash of its id, not
  // comparisons of texts (a map's elements stay where they are).
  struct Seen {
    bool dispatch = false;
    Cause* cause = nullptr;  // once a gap of it counts
  };
  std::unordered_map<base::StringId, Seen> seen;
  for (const auto& g : c.gaps()) {
    if (g.end - g.start < c.o().idle_gap_ns) continue;
    auto [it, fresh] = seen.try_emplace(g.cause);
    if (fresh) it->second.dispatch = c.Text(g.cause) == kDispatchGapCause;
    // A gap inside a sync, a blocking copy, the loader or a storming loop is that finding's;
    // one before queued work is the GPU's own (no host work to remove).
    if (it->second.dispatch || claims.Explains(g.start, g.end)) continue;
    if (it->second.cause == nullptr) {
      it->second.cause = &by_cause[c.Text(g.cause)];
      it->second.cause->name = c.Text(g.cause);
    }
    Cause& cause = *it->second.cause;
    cause.ns += g.end - g.start;
    cause.gaps.push_back(&g);
  }
  std::vector<Cause> out;
  for (auto& [name, cause] : by_cause) out.push_back(std::move(cause));
  std::stable_sort(out.begin(), out.end(),
                   [](const Cause& a, const Cause& b) { return a.ns > b.ns; });
  return out;
}

// One finding for every cause: the fix removes the host work of all their gaps (each cause is
// priced); the costliest causes are listed, each at its largest gap with its total and count.
void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const std::vector<Cause> causes = CausesOfGaps(c, claims);
  if (causes.empty()) return;
  const Trace& t = c.t();
  Candidate cand{Make(c, "gpu-idle", 0), {}};
  Finding& f = cand.finding;
  int64_t total = 0;
  size_t gaps = 0;
  // place (user frame, op) -> (idle, an op row of it)
  std::map<std::pair<std::string_view, std::string_view>, std::pair<int64_t, RowId>> where;
  // The same places by their texts' ids, read once each.
  std::unordered_map<uint64_t, std::pair<int64_t, RowId>*> where_ids;
  for (const Cause& cause : causes) {
    for (const Gap* g : cause.gaps) {
      total += g->end - g->start, ++gaps;
      auto [at, fresh] =
          where_ids.try_emplace((uint64_t{g->where.python} << 32) | g->where.op, nullptr);
      if (fresh) at->second = &where[{c.Text(g->where.python), c.Text(g->where.op)}];
      auto& place = *at->second;
      place.first += g->end - g->start;
      if (place.second == kNoRow) place.second = g->op;
      // The host work during the gap, on the thread that launched the work ending it, goes away.
      if (g->next_launch != kNoRow)
        cand.fix.host_scale.push_back({t.api.track[g->next_launch], g->start, g->end, 0.0});
    }
  }
  cand.fix.what = "the host work during these gaps leaves the thread that feeds the GPU";
  f.title = "GPU idle: " + std::string(causes.front().name);
  const auto top = std::max_element(
      where.begin(), where.end(), [](auto& a, auto& b) { return a.second.first < b.second.first; });
  f.where.python = std::string(top->first.first);
  f.where.op = std::string(top->first.second);
  AdviseAt(c, f, top->second.second);
  f.detail = base::Counted(gaps, "gap", "gaps") + " >= " + base::FormatDuration(c.o().idle_gap_ns) +
             " (" + c.PerIterationText(static_cast<double>(gaps)) + "), " +
             base::FormatDuration(total) + " in total, " +
             base::Counted(causes.size(), "cause", "causes") +
             (causes.size() > c.o().evidence ? " (the costliest listed)" : "");
  for (const Cause& cause : causes) {
    const Gap* largest = *std::max_element(
        cause.gaps.begin(), cause.gaps.end(),
        [](const Gap* a, const Gap* b) { return a->end - a->start < b->end - b->start; });
    // The numbers first: a renderer that shortens the line cuts into the cause's name, not them.
    AddEvidence(c, f, largest->start, largest->end - largest->start,
                base::FormatDuration(cause.ns) + " in " +
                    base::Counted(cause.gaps.size(), "gap", "gaps") + ", GPU " +
                    std::to_string(largest->device) + ": " + std::string(cause.name));
  }
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace gpu_idle_rule

const RuleInfo& GpuIdleRule() {
  static const RuleInfo rule{
      .id = "gpu-idle",
      .title = "GPU idle gaps in the steady state",
      .definition =
          "Gaps between GPU work (kernels and copies, all streams of a device merged) inside the "
          "steady-state window, at least the threshold long. Each gap is classified by what the "
          "host was doing meanwhile, by the largest overlap: blocked in a synchronization "
          "(cuda/hipStreamSynchronize, DeviceSynchronize, EventSynchronize, aten::item), in a "
          "memory-copy call, in a CPU op (named), in Python code between ops (the innermost user "
          "frame), before work already queued (a dispatch gap: the GPU's own), or launching late "
          "(the next GPU op's launch call started after the GPU went idle). One finding for every "
          "cause, priced together; it lists the costliest causes (as many as --evidence, 5) with "
          "each one's time, gaps and largest gap, and advises for the place that costs most.",
      .impact =
          "replayed: the host work during those gaps (on the thread that launched the work ending "
          "them) removed. Gaps that lie mostly inside a sync, a blocking copy, the data loader or "
          "a storming loop belong to that finding and are not counted here.",
      .advice =
          "Remove the host work from the critical path: drop per-step syncs (.item(), .cpu(), "
          ".tolist()), prepare inputs ahead (DataLoader(num_workers>0, pin_memory=True) + "
          ".to(device, non_blocking=True)), and capture the step with CUDA/HIP graphs or "
          "torch.compile(mode=\"reduce-overhead\") to cut launch gaps.",
      .options = {{"--idle-gap-us", "gpu-idle: shortest gap reported (us)", 20,
                   [](AnalyzeOptions& o, double v) {
                     o.idle_gap_ns = static_cast<int64_t>(v * 1e3);
                   }}},
      .detect = &gpu_idle_rule::Detect,
      .listing = RuleInfo::Listing::kCatchAll,
      .runtime_advice =
          "Keep the GPU fed: launch the next work before waiting, synchronize "
          "(cudaStreamSynchronize, cudaDeviceSynchronize) only where the host needs a result, "
          "order streams with cudaEventRecord + cudaStreamWaitEvent instead of host waits, move "
          "host-side preparation off the launching thread or overlap it with GPU work, and capture "
          "repeated launch sequences in a CUDA graph (cudaStreamBeginCapture / cudaGraphLaunch).",
      .limits =
          "gaps shorter than --idle-gap-us; gaps outside the steady window; gaps an earlier "
          "finding explains (a sync, a loader range, a storm, warm-up); time in which any stream "
          "of the device runs work (a compute stream waiting on a collective is comm-wait's); gaps "
          "before work that was already queued (the device's dispatch gaps between kernels: the "
          "GPU's own, counted in the idle split as 'dispatch gap'); it does not price each cause "
          "apart (one replay removes the host work of all of them). Not priced (information) in "
          "a one-pass window (verdict 'one pass': no steps, no kernel ran 3 times): the idle "
          "between one-off calls is set-up, not a loop's."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
