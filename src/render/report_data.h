#pragma once
// ReportData: the JSON object the HTML report draws from - the `analyze` contract (summary,
// iterations, findings), the top kernels, copies by kind, the roofline, and the timeline of one
// representative steady-state iteration. Large traces are aggregated here, so the page stays
// small whatever the trace: at most kMaxTimelineEvents events (the longest kept), names cut to
// kMaxTimelineName characters (40 past kMaxTimelineNameBytes), iterations binned above
// kMaxIterations.

#include <cstddef>
#include <string>

#include "analysis/findings/analyze.h"
#include "analysis/job/job.h"
#include "model/trace.h"

namespace gpuscope::render {

inline constexpr size_t kMaxTimelineEvents = 40'000;
inline constexpr size_t kMaxTimelineName = 240;
// Columns of a kernel's name in the page's bar chart, and of a finding's evidence line.
inline constexpr size_t kChartName = 58;
inline constexpr size_t kEvidenceLine = 200;
inline constexpr size_t kMaxTimelineNameBytes = 2 << 20;
inline constexpr size_t kMaxIterations = 4'000;
inline constexpr size_t kTopKernels = 15;
inline constexpr size_t kMaxRooflineOps = 40;

// A distributed job's report: the job (its rank view) and which rank's trace the rest details.
struct ReportJob {
  const analysis::JobReport* report = nullptr;
  std::string path;           // the job's folder
  int32_t detailed_rank = 0;  // the rank `trace` is
};

std::string ReportDataJson(const model::Trace& trace, const std::string& path,
                           const analysis::AnalyzeOptions& options = {},
                           const ReportJob* job = nullptr);

}  // namespace gpuscope::render
