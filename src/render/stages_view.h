#pragma once
// The stages of a window (analysis/steps/stages.h) shown: one line ("prefix 14.8 ms | 10 x pass
// 1.51 ms | suffix 2.1 ms"), a table (analyze), and the JSON array `summary.stages` (analyze,
// the report's data).

#include <string>
#include <vector>

#include "analysis/steps/stages.h"
#include "output/json_writer.h"

namespace gpuscope::render {

// The word of a stage's kind: "once", "steps", "passes", "layers".
const char* StageKindName(analysis::StageKind kind);

// Whether the stages show a repeat (a table worth printing).
bool StagesRepeat(const std::vector<analysis::Stage>& stages);

// Each stage's label and its time (per repeat for a repeated stage), joined by " | ".
std::string StagesLine(const std::vector<analysis::Stage>& stages);

// "\nStages (...)\n" and a row per stage: label, what separates its repeats, kernels per repeat,
// repeats, time per repeat, time, share of the window. "" when nothing repeats.
std::string StagesTable(const std::vector<analysis::Stage>& stages, size_t width);

// [{"label", "kind", "separator", "kernels", "repeats", "window_ns", "start_ns"}, ...] in order.
void StagesJson(output::JsonWriter& w, const std::vector<analysis::Stage>& stages);

}  // namespace gpuscope::render
