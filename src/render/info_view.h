#pragma once
// `gpuscope info` rendered: what the file is and what it holds, for the terminal, as the JSON
// contract or as key,value CSV; printed to standard output.

#include "analysis/summary.h"
#include "model/trace.h"

namespace gpuscope::render {

void PrintInfoText(const model::Trace& t, const analysis::TraceSummary& s);
void PrintInfoJson(const model::Trace& t, const analysis::TraceSummary& s);
void PrintInfoCsv(const model::Trace& t, const analysis::TraceSummary& s);

}  // namespace gpuscope::render
