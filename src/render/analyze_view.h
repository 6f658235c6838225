#pragma once
// `gpuscope analyze` rendered: the findings report for the terminal, the JSON contract
// (render/analysis_json.h) and one CSV row per finding; returned as text to print.

#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
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

// The findings list of the terminal report (times relative to `origin`) and their CSV rows:
// shared by analyze of one trace and of a job.
std::string FindingsText(const std::vector<analysis::Finding>& findings, int64_t origin,
                         size_t width, bool full_names, const std::string& explain);
// "  saves 95 ms (9.0%) alone; 0 after 1-6": what the finding's fix saves alone and, where less,
// on top of the findings priced before it ("" for information).
std::string SavingText(const analysis::Finding& f);
std::string FindingsCsv(const std::vector<analysis::Finding>& findings);

}  // namespace gpuscope::render
