#pragma once
// `gpuscope info` rendered: what the file is and what it holds, for the terminal, as the JSON
// contract or as key,value CSV; returned as text to print.

#include "analysis/timeline/summary.h"
#include "model/trace.h"

namespace gpuscope::render {

std::string InfoText(const model::Trace& t, const analysis::TraceSummary& s);
std::string InfoJson(const model::Trace& t, const analysis::TraceSummary& s);
std::string InfoCsv(const model::Trace& t, const analysis::TraceSummary& s);

}  // namespace gpuscope::render
