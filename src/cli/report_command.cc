// `gpuscope report TRACE -o report.html`: one self-contained HTML page to look at or hand on -
// summary cards, ranked findings with their fixes, top kernels, copies, per-iteration latency
// and a zoomable timeline of a representative iteration.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/work/device_peaks.h"
#include "base/atomic_output.h"
#include "base/byte_sink.h"
#include "base/text.h"
#include "cli/commands.h"
#include "output/html_report.h"
#include "output/json_writer.h"
#include "render/report_data.h"
#include "render/schema_version.h"
#include "session/job_load.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

struct ReportArgs {
  std::string in;
  std::string out = "gpuscope-report.html";
  std::string format = "table";
  std::vector<std::string> captures;
  std::string device;
};

}  // namespace

CommandBody AddReportCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<ReportArgs>();
  app.add_option("trace", args->in, kTraceHelp)->required();
  app.add_option("-o,--output", args->out, "HTML file to write")->capture_default_str();
  AddFormatOption(app, &args->format, "How to report what was written");
  AddCaptureOption(app, &args->captures,
                   ", to attribute graph kernels (repeatable; see gpuscope analyze)");
  app.add_option("--device", args->device,
                 "The GPU the trace ran on, for the roofline and kernel-efficiency (gpuscope help "
                 "roofline lists them)");
  return [args, &common]() -> base::StatusOr<int> {
    GPUSCOPE_RETURN_IF_ERROR(CheckDevice(args->device));  // before a long load
    GPUSCOPE_RETURN_IF_ERROR(base::CheckOutputPath(args->out, {args->in}));
    size_t bytes = 0;
    if (auto files = JobFiles(args->in); !files.empty()) {
      // A job: the rank view, and the straggler's (else the reference rank's) trace in detail,
      // loaded again: the job holds the ranks' summaries, not their traces.
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      analysis::JobReport r = analysis::AnalyzeJob(std::move(job.ranks));
      int32_t rank = r.straggler ? r.straggler->rank : r.reference_rank;
      const analysis::RankSummary* detailed = &r.ranks.front();  // a job has >= 2 ranks
      for (const auto& s : r.ranks) {
        if (s.rank == rank) detailed = &s;
      }
      GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(detailed->path, common, "report"));
      render::ReportJob rj{&r, args->in, detailed->rank};
      GPUSCOPE_ASSIGN_OR_RETURN(bytes, WriteReport(trace, detailed->path, args->out, args->device,
                                                   args->captures, common, &rj));
    } else {
      GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(args->in, common, "report"));
      GPUSCOPE_ASSIGN_OR_RETURN(
          bytes, WriteReport(trace, args->in, args->out, args->device, args->captures, common));
    }
    // What was written goes where the output does not: stderr when the output is stdout.
    std::FILE* say = args->out == "-" ? stderr : stdout;
    if (args->format == "json") {
      output::JsonWriter w;
      render::BeginDocument(w).Key("source").String(args->in).Key("path").String(args->out);
      w.Key("bytes").Uint(bytes).EndObject();
      std::fprintf(say, "%s\n", w.str().c_str());
    } else if (args->format == "csv") {
      std::fprintf(say, "path,bytes\n%s,%zu\n", args->out.c_str(), bytes);
    } else {
      std::fprintf(say, "wrote %s (%s)\n", args->out.c_str(),
                   base::FormatBytes(static_cast<int64_t>(bytes)).c_str());
    }
    return 0;
  };
}

}  // namespace gpuscope::cli
