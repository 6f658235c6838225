#include "render/export.h"

#include <filesystem>
#include <system_error>

#include "analysis/stats.h"
#include "analysis/steady_state.h"
#include "base/byte_sink.h"
#include "base/text.h"
#include "output/chrome_trace_writer.h"
#include "output/events_csv_writer.h"
#include "output/rpd_writer.h"
#include "render/stats_tables.h"

namespace gpuscope::render {
namespace {

namespace fs = std::filesystem;

uint64_t FileBytes(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

void RemoveQuietly(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

// Iteration markers for the JSON timeline, from the steady-state analysis.
std::vector<output::MarkerSpan> IterationMarkers(const model::Trace& trace) {
  analysis::SteadyState ss = analysis::FindSteadyState(trace);
  std::vector<output::MarkerSpan> out;
  if (ss.iterations.size() < 2) return out;
  for (size_t i = 0; i < ss.iterations.size(); ++i) {
    const auto& it = ss.iterations[i];
    out.push_back({it.start_ns, it.dur_ns,
                   "iteration " + std::to_string(it.number) + (i < ss.warmup ? " (warm-up)" : "")});
  }
  return out;
}

base::StatusOr<std::vector<ExportedFile>> WriteJson(const model::Trace& trace,
                                                    const std::string& out) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(out));
  output::ChromeTraceOptions opt;
  opt.iterations = IterationMarkers(trace);
  auto counts = output::WriteChromeTrace(trace, opt, *sink);
  if (!counts.ok()) {
    RemoveQuietly(out);
    return counts.status();
  }
  std::string what = base::FormatCount(counts->events) + " events, " +
                     base::FormatCount(counts->flows) + " launch->GPU flows";
  if (!opt.iterations.empty())
    what += ", " + base::FormatCount(opt.iterations.size()) + " iteration markers";
  return std::vector<ExportedFile>{{out, what, FileBytes(out)}};
}

base::StatusOr<std::vector<ExportedFile>> WriteRpdFile(const model::Trace& trace,
                                                       const std::string& out) {
  auto counts = output::WriteRpd(trace, out);
  if (!counts.ok()) {
    RemoveQuietly(out);
    return counts.status();
  }
  std::string what = base::FormatCount(counts->ops) + " GPU ops, " +
                     base::FormatCount(counts->api) + " API calls and markers";
  if (counts->monitor) what += ", " + base::FormatCount(counts->monitor) + " monitor samples";
  if (counts->gpu_ranges) {
    what += ", " + base::FormatCount(counts->gpu_ranges) +
            " GPU-side ranges (in ext_gpuscope_gpurange)";
  }

  return std::vector<ExportedFile>{{out, what, FileBytes(out)}};
}

base::StatusOr<std::vector<ExportedFile>> WriteCsv(const model::Trace& trace,
                                                   const std::string& out) {
  // x.csv -> x.csv (events) + x_kernels.csv ...; a directory -> events.csv + kernels.csv ...
  bool single = out.ends_with(".csv");
  std::string dir, prefix;
  if (single) {
    fs::path p(out);
    dir = p.parent_path().string();
    prefix = p.stem().string() + "_";
  } else {
    dir = out;
  }
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) return base::Status::Error(dir + ": cannot create the directory (" + ec.message() + ")");
  auto path_of = [&](const std::string& name) {
    return (dir.empty() ? fs::path(prefix + name) : fs::path(dir) / (prefix + name)).string();
  };
  std::vector<ExportedFile> files;
  std::string events = single ? out : path_of("events.csv");
  GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(events));
  auto rows = output::WriteEventsCsv(trace, *sink);
  if (!rows.ok()) {
    RemoveQuietly(events);
    return rows.status();
  }
  files.push_back({events, base::FormatCount(*rows) + " events", FileBytes(events)});
  analysis::Stats st = analysis::ComputeStats(trace, {});
  struct Table {
    const char* name;
    const char* file;
    size_t rows;
    bool always;
  };
  for (const Table& tb : {Table{"kernels", "kernels.csv", st.kernels.size(), true},
                          Table{"memops", "memops.csv", st.memops.size(), true},
                          Table{"api", "api.csv", st.api.size(), true},
                          Table{"cpu", "cpu_ops.csv", st.cpu_ops.size(), true},
                          Table{"os", "os_runtime.csv", st.os_runtime.size(), false},
                          Table{"counters", "counters.csv", st.counters.size(), false}}) {
    if (!tb.always && tb.rows == 0) continue;
    std::string path = path_of(tb.file);
    GPUSCOPE_ASSIGN_OR_RETURN(auto s, base::ByteSink::Create(path));
    s->Write(StatsTable(st, tb.name).Csv());
    GPUSCOPE_RETURN_IF_ERROR(s->Close());
    files.push_back(
        {path, base::FormatCount(tb.rows) + " rows (stats " + tb.name + ")", FileBytes(path)});
  }
  return files;
}

}  // namespace

const std::vector<Writer>& Writers() {
  static const std::vector<Writer> writers = {
      {"json", ".json, .json.gz",
       "Chrome trace JSON in Kineto's dialect (ui.perfetto.dev, chrome://tracing; gpuscope reads "
       "it back)",
       WriteJson},
      {"rpd", ".rpd", "rocmProfileData schema v2 SQLite with its views (top, ktop, busy, ...)",
       WriteRpdFile},
      {"csv", ".csv, dir/", "events.csv (one row per event) and the stats tables as CSV", WriteCsv},
  };
  return writers;
}

base::StatusOr<std::string> ExportFormat(const std::string& out, const std::string& to) {
  if (!to.empty()) return to;
  if (out.ends_with(".json") || out.ends_with(".json.gz")) return std::string("json");
  if (out.ends_with(".rpd")) return std::string("rpd");
  std::error_code ec;
  if (out.ends_with(".csv") || out.ends_with("/") || fs::is_directory(out, ec))
    return std::string("csv");
  return base::Status::Error(
      out +
      ": cannot tell the output format from the name; use .json or .json.gz (Chrome "
      "trace for ui.perfetto.dev), .rpd (rocmProfileData), .csv or a directory/ (CSV "
      "tables), or give --to json|rpd|csv");
}

base::StatusOr<std::vector<ExportedFile>> ExportTrace(const model::Trace& trace,
                                                      const std::string& out,
                                                      const std::string& format) {
  for (const Writer& w : Writers()) {
    if (w.name == format) return w.write(trace, out);
  }
  return base::Status::Error(out + ": no writer for the format '" + format +
                             "'; `gpuscope help formats` lists them");
}

}  // namespace gpuscope::render
