#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analysis/work/device_peaks.h"
#include "base/atomic_output.h"
#include "base/byte_sink.h"
#include "base/text.h"
#include "output/html_report.h"
#include "output/json_writer.h"
#include "render/report_data.h"
#include "session/categories.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::session {

base::StatusOr<size_t> WriteReport(const model::Trace& trace, const std::string& path,
                                   const std::string& out, const std::string& device,
                                   const std::vector<std::string>& captures,
                                   const CommonOptions& common, const render::ReportJob* job) {
  GPUSCOPE_RETURN_IF_ERROR(CheckDevice(device));
  analysis::AnalyzeOptions options;
  options.device = device;
  GPUSCOPE_ASSIGN_OR_RETURN(options.captures, LoadCaptures(captures, common));
  GPUSCOPE_ASSIGN_OR_RETURN(options.categories, CategoryRulesFor(common));
  std::string title = std::filesystem::path(job ? job->path : path).filename().string();
  std::string page =
      output::RenderHtmlReport(render::ReportDataJson(trace, path, options, job), title);
  std::vector<std::string> inputs = {path};
  inputs.insert(inputs.end(), captures.begin(), captures.end());
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, base::AtomicOutput::Begin(out, inputs, ".html"));
  GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(file.temp_path()));
  sink->Write(page);
  GPUSCOPE_RETURN_IF_ERROR(sink->Close());
  GPUSCOPE_RETURN_IF_ERROR(file.Commit());
  return page.size();
}

}  // namespace gpuscope::session
