#include <cstdio>
#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/findings/registry.h"
#include "analysis/work/device_peaks.h"
#include "base/allocator_tuning.h"
#include "base/stage_timer.h"
#include "base/text.h"
#include "render/analyze_view.h"
#include "session/categories.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::session {

base::StatusOr<std::string> AnalyzeOutput(const model::Trace& trace, const AnalyzeRequest& a,
                                          const CommonOptions& common) {
  analysis::AnalyzeOptions o = a.options;
  o.threads = common.threads;
  // The steps are found once: to check --phase, then for the analysis.
  base::StageTimer timer;
  const analysis::SteadyState steps = analysis::FindSteps(trace, o.steady);
  timer.Lap("analyze: steps found");
  if (!a.phase.empty()) {
    if (!steps.Phase(a.phase)) {
      return base::Status::Error(a.path + ": " + analysis::MissingPhaseMessage(steps, a.phase));
    }
    o.steady.phase = a.phase;
    if (size_t others = analysis::InterleavedSteps(steps, a.phase)) {
      Tell(common, "gpuscope: note: " + a.path + ": --phase " + a.phase + ": " +
                       base::FormatCount(others) +
                       " steps of other phases run between its first and last step; the window "
                       "holds their work and the findings count it (plain `analyze` prices each "
                       "phase in its own steps: its phase lines)");
    }
  }
  GPUSCOPE_RETURN_IF_ERROR(CheckDevice(o.device));
  GPUSCOPE_ASSIGN_OR_RETURN(o.captures, LoadCaptures(a.captures, common));
  GPUSCOPE_ASSIGN_OR_RETURN(o.categories, CategoryRulesFor(common));
  analysis::AnalysisReport r = [&] {
    base::ReuseLargeBlocks reuse;  // the analysis's scratch arrays reused, not faulted afresh
    return analysis::Analyze(trace, o, steps);
  }();
  timer.Lap("analyze: whole");
  const render::AnalyzeView view{a.path, a.full_names, a.explain};
  std::string out = a.format == "json" ? render::AnalyzeJson(trace, r, view)
                    : a.format == "csv"
                        ? render::AnalyzeCsv(r)
                        : FitTerminal(render::AnalyzeText(trace, r, view), a.full_names);
  timer.Lap("analyze: rendered");
  return out;
}

}  // namespace gpuscope::session
