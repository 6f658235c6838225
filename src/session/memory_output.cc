#include "analysis/steps/steady_state.h"
#include "analysis/timeline/memory_timeline.h"
#include "render/memory_view.h"
#include "session/outputs.h"

namespace gpuscope::session {

std::string MemoryOutput(const model::Trace& trace, const MemoryRequest& r) {
  // The steps as analyze finds them: warm-up steps are not the steady state's.
  analysis::SteadyState steady = analysis::ChooseWindow(trace, analysis::FindSteps(trace));
  analysis::MemoryTimeline m = analysis::BuildMemoryTimeline(trace, steady, r.top);
  if (r.format == "json") return render::MemoryJson(trace, r.path, m);
  if (r.format == "csv") return render::MemoryCsv(m);
  return FitTerminal(render::MemoryText(trace, r.path, m), r.full_names);
}

}  // namespace gpuscope::session
