// `gpuscope report TRACE -o report.html`: one self-contained HTML page to look at or hand on -
// summary cards, ranked findings with their fixes, top kernels, copies, per-iteration latency
// and a zoomable timeline of a representative iteration.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "base/byte_sink.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "output/html_report.h"
#include "output/json_writer.h"
#include "render/report_data.h"

namespace gpuscope::cli {
namespace {

struct ReportArgs {
  std::string in;
  std::string out = "gpuscope-report.html";
  std::string format = "table";
};

}  // namespace

CommandBody AddReportCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<ReportArgs>();
  app.add_option("trace", args->in, "Trace to report on (any format gpuscope reads)")->required();
  app.add_option("-o,--output", args->out, "HTML file to write")->capture_default_str();
  app.add_option("--format", args->format, "How to report what was written")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  return [args, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(args->in, common, "report"));
    std::string page =
        output::RenderHtmlReport(render::ReportDataJson(trace, args->in),
                                 std::filesystem::path(args->in).filename().string());
    GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(args->out));
    sink->Write(page);
    GPUSCOPE_RETURN_IF_ERROR(sink->Close());
    if (args->format == "json") {
      output::JsonWriter w;
      w.BeginObject()
          .Key("source")
          .String(args->in)
          .Key("path")
          .String(args->out)
          .Key("bytes")
          .Uint(page.size())
          .EndObject();
      std::printf("%s\n", w.str().c_str());
    } else if (args->format == "csv") {
      std::printf("path,bytes\n%s,%zu\n", args->out.c_str(), page.size());
    } else {
      std::printf("wrote %s (%s)\n", args->out.c_str(),
                  base::FormatBytes(static_cast<int64_t>(page.size())).c_str());
    }
    return 0;
  };
}

}  // namespace gpuscope::cli
