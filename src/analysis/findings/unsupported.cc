#include "analysis/findings/unsupported.h"

#include <algorithm>

#include "analysis/common/intervals.h"

namespace gpuscope::analysis {

void IncompleteVerdict(const std::vector<HealthNote>& notes, AnalysisSummary& s) {
  for (const HealthNote& n : notes) {
    if (n.trusted.empty()) continue;
    s.verdict_kind = VerdictKind::kIncompleteTrace;
    s.verdict = "incomplete trace (" + n.id + "): " + n.seen + ". Still trusted: " + n.trusted +
                ". Unsupported: " + s.verdict;
    return;
  }
}

namespace {

using Spans = std::vector<std::pair<int64_t, int64_t>>;

bool Touches(const Spans& bad, int64_t s, int64_t e) {
  for (const auto& [a, b] : bad)
    if (Overlap(s, std::max(e, s + 1), a, b) > 0) return true;
  return false;
}

bool FixTouches(const model::Trace& t, const WhatIf& f, const Spans& bad) {
  auto api = [&](size_t r) { return Touches(bad, t.api.start_ns[r], t.api.end_ns(r)); };
  auto kernel = [&](size_t r) { return Touches(bad, t.kernels.start_ns[r], t.kernels.end_ns(r)); };
  auto memop = [&](size_t r) { return Touches(bad, t.memops.start_ns[r], t.memops.end_ns(r)); };
  for (auto r : f.unblock_api)
    if (api(r)) return true;
  for (const auto& [r, d] : f.api_dur)
    if (api(r)) return true;
  for (const auto& [r, d] : f.kernel_dur)
    if (kernel(r)) return true;
  for (const auto& [r, d] : f.memop_dur)
    if (memop(r)) return true;
  for (const auto* rows :
       {&f.graph_kernels, &f.typical_latency, &f.stream_waits_dropped, &f.kernels_removed})
    for (size_t r : *rows)
      if (kernel(r)) return true;
  for (const auto* rows : {&f.prefetch_memops, &f.memops_removed})
    for (size_t r : *rows)
      if (memop(r)) return true;
  for (const auto& h : f.host_scale)
    if (Touches(bad, h.start_ns, h.end_ns)) return true;
  return false;
}

}  // namespace

void UnpriceImpossible(const model::Trace& t, const std::vector<HealthNote>& notes,
                       std::vector<internal::Candidate>& cands) {
  for (const HealthNote& n : notes) {
    if (n.impossible.empty()) continue;
    for (auto& c : cands) {
      if (c.fix.empty() || !FixTouches(t, c.fix, n.impossible)) continue;
      c.fix = WhatIf{};
      c.finding.detail =
          "not priced: " +
          (n.unpriced_why.empty() ? "its times are ones " + n.id + " calls impossible"
                                  : n.unpriced_why) +
          "; " + c.finding.detail;
    }
  }
}

void UnpriceOnePassIdle(const AnalysisSummary& s, std::vector<internal::Candidate>& cands) {
  if (s.verdict_kind != VerdictKind::kOnePass) return;
  for (auto& c : cands) {
    // Low utilization of one pass is no steady state's either: information, like its idle.
    if (c.finding.rule == "low-utilization") c.finding.severity = Severity::kInfo;
    if (c.finding.rule != "gpu-idle" || c.fix.empty()) continue;
    c.fix = WhatIf{};
    c.finding.severity = Severity::kInfo;
    c.finding.detail =
        "not priced: one pass, nothing repeats (the verdict): this idle is the pass's own host "
        "work between one-off calls, not a steady state's cost; " +
        c.finding.detail;
  }
}

void CaptureNote(const GraphAttribution& g, std::vector<HealthNote>& notes) {
  if (g.captures == 0 || g.graph_kernels == 0) return;
  auto it = std::find_if(notes.begin(), notes.end(),
                         [](const HealthNote& n) { return n.id == "graph-capture-missing"; });
  if (it == notes.end()) return;
  if (g.matched == g.graph_kernels) {
    notes.erase(it);
    return;
  }
  it->seen = g.Summary() + "; the rest are tied to their graph launch only";
}

}  // namespace gpuscope::analysis
