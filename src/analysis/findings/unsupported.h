#pragma once
// What the health notes do to analyze's results (issue 51): a note that leaves the verdict
// unsupportable (HealthNote::trusted) makes it "incomplete trace", naming the note and what can
// still be trusted; a finding whose fix touches times a note calls impossible is not priced; and
// graph-capture-missing goes once the captures given (--capture) matched the graph kernels; a
// one-pass window's GPU idle is not priced.

#include <vector>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/context.h"
#include "analysis/timeline/health.h"

namespace gpuscope::analysis {

void IncompleteVerdict(const std::vector<HealthNote>& notes, AnalysisSummary& s);

// Empties the fix of every candidate that touches a note's impossible times (its saving is then
// 0) and says so in its detail.
void UnpriceImpossible(const model::Trace& t, const std::vector<HealthNote>& notes,
                       std::vector<internal::Candidate>& cands);

// A one-pass window (VerdictKind::kOnePass): the gpu-idle candidates' fixes are emptied and
// they become information, their detail saying why - the idle between one-off calls is set-up,
// not a steady state's cost; low-utilization is information too.
void UnpriceOnePassIdle(const AnalysisSummary& s, std::vector<internal::Candidate>& cands);

// graph-capture-missing once captures were offered: gone when they matched every graph kernel,
// else it says how many they matched.
void CaptureNote(const GraphAttribution& g, std::vector<HealthNote>& notes);

}  // namespace gpuscope::analysis
