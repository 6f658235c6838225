#pragma once
// Trace health (analysis/timeline/health.h) in the terminal and in JSON: `info` lists every note,
// `analyze` prints one line naming them, both put them in their JSON as "health".

#include <string>
#include <vector>

#include "analysis/timeline/health.h"
#include "output/json_writer.h"

namespace gpuscope::render {

// "\nHealth ..." with one entry per note: what is seen, its effect, how to record it.
std::string HealthText(const std::vector<analysis::HealthNote>& notes);
// "a, b (gpuscope info: ...)": the notes' ids for analyze's summary; "" when there is none.
std::string HealthLine(const std::vector<analysis::HealthNote>& notes);
// "health": [{"id", "seen", "effect", "record"}]
void HealthJson(output::JsonWriter& w, const std::vector<analysis::HealthNote>& notes);

}  // namespace gpuscope::render
