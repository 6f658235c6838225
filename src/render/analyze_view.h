#pragma once
// `gpuscope analyze` rendered: the findings report for the terminal, the JSON contract
// (render/analysis_json.h) and one CSV row per finding; returned as text to print.

#include <string>

#include "analysis/analyze.h"
#include "model/trace.h"

namespace gpuscope::render {

struct AnalyzeView {
  std::string path;
  bool full_names = false;
  std::string explain;  // a rule id: how its findings were priced, in full
};

std::string AnalyzeText(const model::Trace& t, const analysis::AnalysisReport& r,
                        const AnalyzeView& a);
std::string AnalyzeJson(const model::Trace& t, const analysis::AnalysisReport& r,
                        const AnalyzeView& a);
std::string AnalyzeCsv(const analysis::AnalysisReport& r);

}  // namespace gpuscope::render
