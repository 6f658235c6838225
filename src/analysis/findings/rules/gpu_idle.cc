// gpu-idle: the GPU idle gaps that no finding above explains, grouped by what the host did.

#include <algorithm>
#include <map>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  std::map<std::string_view, std::vector<const Gap*>> by_cause;  // views into the gaps
  for (const auto& g : c.gaps()) {
    // A gap inside a sync, a blocking copy, the loader or a storming loop is that finding's;
    // one before queued work is the GPU's own (no host work to remove).
    if (g.end - g.start >= c.o().idle_gap_ns && c.Text(g.cause) != kDispatchGapCause &&
        !claims.Explains(g.start, g.end))
      by_cause[c.Text(g.cause)].push_back(&g);
  }
  // The causes that cost at least 1% of the window, at most 5 (the full split is in the summary).
  std::vector<std::pair<int64_t, std::string_view>> ranked;
  for (auto& [cause, gaps] : by_cause) {
    int64_t total = 0;
    for (const Gap* g : gaps) total += g->end - g->start;
    ranked.emplace_back(total, cause);
  }
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t k = 0; k < ranked.size(); ++k) {
    if (k >= 5 || c.Percent(ranked[k].first) < 1.0) by_cause.erase(ranked[k].second);
  }
  const Trace& t = c.t();
  for (auto& [cause, gaps] : by_cause) {
    int64_t total = 0;
    std::map<std::pair<std::string_view, std::string_view>, int64_t> where;
    Candidate cand{Make(c, "gpu-idle", 0), {}};
    for (const Gap* g : gaps) {
      total += g->end - g->start,
          where[{c.Text(g->where.python), c.Text(g->where.op)}] += g->end - g->start;
      // The host work during the gap, on the thread that launched the work ending it, goes away.
      if (g->next_launch != kNoRow)
        cand.fix.host_scale.push_back({t.api.track[g->next_launch], g->start, g->end, 0.0});
    }
    cand.fix.what = "the host work during these gaps leaves the thread that feeds the GPU";
    Finding& f = cand.finding;
    f.title = "GPU idle: " + std::string(cause);
    auto top = std::max_element(where.begin(), where.end(),
                                [](auto& a, auto& b) { return a.second < b.second; });
    f.where.python = std::string(top->first.first);
    f.where.op = std::string(top->first.second);
    f.detail = base::Counted(gaps.size(), "gap", "gaps") +
               " >= " + base::FormatDuration(c.o().idle_gap_ns) + " (" +
               c.PerIterationText(static_cast<double>(gaps.size())) + "), " +
               base::FormatDuration(total) + " in total";
    std::sort(gaps.begin(), gaps.end(),
              [](const Gap* a, const Gap* b) { return a->end - a->start > b->end - b->start; });
    for (const Gap* g : gaps) {
      AddEvidence(c, f, g->start, g->end - g->start,
                  "GPU " + std::to_string(g->device) + " idle" +
                      (g->where.op == 0 ? "" : " during " + std::string(c.Text(g->where.op))));
    }
    out.push_back(std::move(cand));
  }
}

}  // namespace

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
          "(the next GPU op's launch call started after the GPU went idle); one finding per cause, "
          "for the (at most 5) causes that cost at least 1% of the window.",
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
      .detect = &Detect,
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
          "GPU's own, counted in the idle split as 'dispatch gap'); causes under 1% of the "
          "window. Not priced (information) in a one-pass window (verdict 'one pass': no steps, "
          "no kernel ran 3 times): the idle between one-off calls is set-up, not a loop's."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
