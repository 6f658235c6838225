// `gpuscope convert IN -o OUT`: the trace in another format - Chrome trace JSON for
// ui.perfetto.dev / chrome://tracing, .rpd and rocpd for the ROCm tools, an Nsight Systems
// export for nsys's tools, CSV tables for pandas.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/atomic_output.h"
#include "base/text.h"
#include "cli/commands.h"
#include "output/json_writer.h"
#include "render/export.h"
#include "render/schema_version.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
  std::string to;
  std::string format = "table";
  bool force = false;
  bool annotate = false;
};

}  // namespace

CommandBody AddConvertCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<ConvertArgs>();
  app.add_option("trace", args->in, kTraceHelp)->required();
  app.add_option("-o,--output", args->out,
                 "Output: x.json / x.json.gz (Chrome trace), x.rpd (rocmProfileData), x.sqlite "
                 "(Nsight Systems export), x.db (rocpd), x.csv or dir/ (CSV tables)")
      ->required();
  std::vector<std::string> formats;
  for (const render::Writer& w : render::Writers()) formats.emplace_back(w.name);
  app.add_option("--to", args->to, "Output format when the name does not say it")
      ->check(OneOf(formats));
  AddFormatOption(app, &args->format, "How to report what was written");
  app.add_flag("--force", args->force,
               "CSV into a directory: replace files of the same name that gpuscope did not write");
  app.add_flag("--annotate", args->annotate,
               "Chrome JSON: add rows with the critical path of the steady window and each "
               "rule's findings at their events (for ui.perfetto.dev)");
  return [args, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto format, render::ExportFormat(args->out, args->to));
    if (args->annotate && format != "json") {
      return base::Status::Error(
          "--annotate: rows are written into Chrome JSON only (-o x.json), "
          "not into " +
          format);
    }
    // Before a long load: the output is not the input, a device or a FIFO.
    if (format != "csv" || args->out.ends_with(".csv"))
      GPUSCOPE_RETURN_IF_ERROR(base::CheckOutputPath(args->out, {args->in}));
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(args->in, common, "convert"));
    render::ExportOptions options;
    options.inputs = {args->in};
    options.force = args->force;
    if (args->annotate) options.annotations = Annotations(trace);
    GPUSCOPE_ASSIGN_OR_RETURN(auto files, render::ExportTrace(trace, args->out, format, options));
    // What was written goes where the output does not: stderr when the output is stdout.
    std::FILE* say = args->out == "-" ? stderr : stdout;
    if (args->format == "json") {
      output::JsonWriter w;
      render::BeginDocument(w).Key("source").String(args->in).Key("format").String(format);
      w.Key("files").BeginArray();
      for (const auto& f : files) {
        w.BeginObject().Key("path").String(f.path).Key("bytes").Uint(f.bytes);
        w.Key("contents").String(f.what).EndObject();
      }
      w.EndArray().EndObject();
      std::fprintf(say, "%s\n", w.str().c_str());
    } else if (args->format == "csv") {
      std::fprintf(say, "path,bytes,contents\n");
      for (const auto& f : files)
        std::fprintf(say, "%s,%llu,\"%s\"\n", f.path.c_str(),
                     static_cast<unsigned long long>(f.bytes), f.what.c_str());
    } else {
      for (const auto& f : files) {
        std::fprintf(say, "wrote %s (%s): %s\n", f.path.c_str(),
                     base::FormatBytes(static_cast<int64_t>(f.bytes)).c_str(), f.what.c_str());
      }
    }
    return 0;
  };
}

}  // namespace gpuscope::cli
