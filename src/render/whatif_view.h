#pragma once
// `gpuscope whatif` rendered: the scenario, the window and step time before and after, the
// saving, the replay's edits and the critical path after (and before), as a terminal report,
// CSV (one row per side) or the JSON contract
// {"source", "scenario", "window": {"source", "steps"}, "before": {"window_ns", "step_ns",
//  "critical_path": [{"category", "ns", "percent"}]}, "after": {...}, "saving_ns",
//  "saving_percent", "edits", "critical_path": [...after...]}.

#include <string>

#include "analysis/replay/scenario.h"
#include "model/trace.h"

namespace gpuscope::render {

std::string WhatIfText(const model::Trace& t, const std::string& path, const analysis::Scenario& s,
                       const analysis::ScenarioResult& r);
std::string WhatIfJson(const model::Trace& t, const std::string& path, const analysis::Scenario& s,
                       const analysis::ScenarioResult& r);
std::string WhatIfCsv(const analysis::Scenario& s, const analysis::ScenarioResult& r);

// `gpuscope help whatif`: each scenario option, what the replay changes for it, and what the
// replay assumes; table/markdown text, or the options as JSON/CSV rows {option, change}.
std::string WhatIfHelp(const std::string& format);

}  // namespace gpuscope::render
