// `convert --annotate`: what the analysis found, as rows of the Chrome/Perfetto JSON - the
// critical path of the steady window as stretches in time, and each rule's findings at their
// events - so that a user sees them beside the trace's own rows in ui.perfetto.dev.

#include <map>
#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/steps/steady_state.h"
#include "format/chrome_trace.h"
#include "session/outputs.h"

namespace gpuscope::session {

namespace {

// The row a path stretch is spent on, in words ("GPU 0 stream 7", "thread 1234").
std::string RowName(const model::Trace& t, model::TrackId track) {
  if (track >= t.tracks.size()) return "";
  const model::Track& tr = t.tracks[track];
  std::string id = tr.tid_text ? std::string(t.str(tr.tid_text)) : std::to_string(tr.tid);
  if (tr.kind == model::TrackKind::kCpuThread) return "thread " + id;
  return "GPU " + std::to_string(tr.device) + " stream " + id;
}

}  // namespace

std::vector<output::MarkerRow> Annotations(const model::Trace& t) {
  namespace ct = format::chrome_trace;
  std::vector<output::MarkerRow> rows;
  const analysis::SteadyState steps = analysis::FindSteps(t);
  analysis::SteadyState steady = analysis::ChooseWindow(t, steps);
  output::MarkerRow path{"critical path", ct::kCategoryAnnotation, {}};
  analysis::ReplayGraph graph(t, steady.start_ns, steady.end_ns);
  for (const analysis::PathSegment& s : graph.CriticalSegments()) {
    std::string detail = RowName(t, s.track);
    if (!s.name.empty()) detail = std::string(s.name) + " on " + detail;
    path.spans.push_back({s.start_ns, s.end_ns - s.start_ns, std::string(s.category), detail});
  }
  if (!path.spans.empty()) rows.push_back(std::move(path));
  // Every finding's events (up to 1,000 per finding), one row per rule in the report's order.
  analysis::AnalyzeOptions o;
  o.evidence = 1000;
  analysis::AnalysisReport report = analysis::Analyze(t, o, steps);
  std::map<std::string, size_t> row_of;
  for (const analysis::Finding& f : report.findings) {
    if (f.evidence.empty()) continue;
    auto [it, fresh] = row_of.try_emplace(f.rule, rows.size());
    if (fresh) rows.push_back({"finding: " + f.rule, ct::kCategoryAnnotation, {}});
    for (const analysis::Evidence& e : f.evidence)
      rows[it->second].spans.push_back({e.start_ns, e.dur_ns, f.title, e.what});
  }
  return rows;
}

}  // namespace gpuscope::session
