#pragma once
// `gpuscope analyze` rendered: the findings report for the terminal, the JSON contract
// (render/analysis_json.h) and one CSV row per finding; printed to standard output.

#include <string>

#include "analysis/analyze.h"
#include "model/trace.h"

namespace gpuscope::render {

struct AnalyzeView {
  std::string path;
  bool full_names = false;
};

void PrintAnalyzeText(const model::Trace& t, const analysis::AnalysisReport& r,
                      const AnalyzeView& a);
void PrintAnalyzeJson(const model::Trace& t, const analysis::AnalysisReport& r,
                      const AnalyzeView& a);
void PrintAnalyzeCsv(const analysis::AnalysisReport& r);

}  // namespace gpuscope::render
