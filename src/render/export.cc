#include "render/export.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "analysis/stats/stats.h"
#include "analysis/steps/steady_state.h"
#include "base/atomic_output.h"
#include "base/byte_sink.h"
#include "base/text.h"
#include "format/chrome_trace.h"
#include "output/chrome_trace_writer.h"
#include "output/events_csv_writer.h"
#include "output/profiler_db_writers.h"
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

// The CSV files gpuscope wrote into a directory, listed in it: a later write may replace them,
// and only them, without --force.
constexpr const char* kManifest = ".gpuscope-files";

std::set<std::string> WrittenBefore(const std::string& dir) {
  std::set<std::string> names;
  std::ifstream in(fs::path(dir) / kManifest);
  for (std::string line; std::getline(in, line);) names.insert(line);
  return names;
}

// Before the CSV files of a directory output replace what is there: a file of the same name
// that gpuscope did not write there (not in its list) is a user's, and the whole output is
// refused unless --force.
base::Status CheckDirectory(const std::string& dir, const std::vector<base::AtomicOutput>& staged,
                            const ExportOptions& options) {
  if (options.force) return base::Status::Ok();
  std::set<std::string> ours = WrittenBefore(dir);
  for (const auto& out : staged) {
    std::error_code ec;
    std::string name = fs::path(out.target()).filename().string();
    if (fs::exists(fs::symlink_status(out.target(), ec)) && !ours.count(name)) {
      return base::Status::Error(out.target() +
                                 ": a file gpuscope did not write is there; nothing was "
                                 "written - choose another directory, or add --force");
    }
  }
  return base::Status::Ok();
}

// Iteration markers for the JSON timeline, from the steady-state analysis.
output::MarkerRow IterationMarkers(const model::Trace& trace) {
  analysis::SteadyState ss = analysis::FindSteadyState(trace);
  output::MarkerRow out{"iterations", format::chrome_trace::kCategoryIteration, {}};
  if (ss.iterations.size() < 2) return out;
  for (size_t i = 0; i < ss.iterations.size(); ++i) {
    const auto& it = ss.iterations[i];
    out.spans.push_back(
        {it.start_ns, it.dur_ns,
         "iteration " + std::to_string(it.number) + (i < ss.warmup ? " (warm-up)" : ""), ""});
  }
  return out;
}

base::StatusOr<std::vector<ExportedFile>> WriteJson(const model::Trace& trace,
                                                    const std::string& out,
                                                    const ExportOptions& options) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, base::AtomicOutput::Begin(out, options.inputs, ".json"));
  GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(file.temp_path()));
  output::ChromeTraceOptions opt;
  output::MarkerRow iterations = IterationMarkers(trace);
  size_t marked = iterations.spans.size();
  if (marked) opt.rows.push_back(std::move(iterations));
  for (const auto& row : options.annotations) opt.rows.push_back(row);
  auto counts = output::WriteChromeTrace(trace, opt, *sink);
  if (!counts.ok()) return counts.status();
  uint64_t bytes = FileBytes(file.temp_path());
  GPUSCOPE_RETURN_IF_ERROR(file.Commit());
  std::string what = base::FormatCount(counts->events) + " events, " +
                     base::FormatCount(counts->flows) + " launch->GPU flows";
  if (marked) what += ", " + base::FormatCount(marked) + " iteration markers";
  for (const auto& row : options.annotations)
    what += ", " + base::FormatCount(row.spans.size()) + " on '" + row.name + "'";
  return std::vector<ExportedFile>{{out, what, bytes}};
}

// A SQLite database written by `write` into a temporary file beside `out` (`suffix`: its ending
// for standard output), then put in place; returns its size.
template <typename Write>
base::StatusOr<uint64_t> WriteDatabase(const std::string& out, const ExportOptions& options,
                                       std::string_view suffix, Write&& write) {
  if (out == "-" && isatty(STDOUT_FILENO)) {
    return base::Status::Error("-: standard output is a terminal; a " + std::string(suffix) +
                               " file is a binary database - redirect it (> t" +
                               std::string(suffix) + ")");
  }
  GPUSCOPE_ASSIGN_OR_RETURN(auto file,
                            base::AtomicOutput::Begin(out, options.inputs, std::string(suffix)));
  GPUSCOPE_RETURN_IF_ERROR(write(file.temp_path()));
  uint64_t bytes = FileBytes(file.temp_path());
  GPUSCOPE_RETURN_IF_ERROR(file.Commit());
  return bytes;
}

base::StatusOr<std::vector<ExportedFile>> WriteRpdFile(const model::Trace& trace,
                                                       const std::string& out,
                                                       const ExportOptions& options) {
  output::RpdWriteCounts counts;
  GPUSCOPE_ASSIGN_OR_RETURN(uint64_t bytes,
                            WriteDatabase(out, options, ".rpd", [&](const std::string& path) {
                              GPUSCOPE_ASSIGN_OR_RETURN(counts, output::WriteRpd(trace, path));
                              return base::Status::Ok();
                            }));
  std::string what = base::FormatCount(counts.ops) + " GPU ops, " + base::FormatCount(counts.api) +
                     " API calls and markers";
  if (counts.monitor) what += ", " + base::FormatCount(counts.monitor) + " monitor samples";
  if (counts.gpu_ranges) {
    what +=
        ", " + base::FormatCount(counts.gpu_ranges) + " GPU-side ranges (in ext_gpuscope_gpurange)";
  }
  return std::vector<ExportedFile>{{out, what, bytes}};
}

// A profiler's own database (nsys export, rocpd): what was written, and what the format has no
// place for, said in the same line.
template <auto kWrite>
base::StatusOr<std::vector<ExportedFile>> WriteProfilerDb(const model::Trace& trace,
                                                          const std::string& out,
                                                          const ExportOptions& options,
                                                          std::string_view suffix) {
  output::LossyWriteCounts counts;
  GPUSCOPE_ASSIGN_OR_RETURN(uint64_t bytes,
                            WriteDatabase(out, options, suffix, [&](const std::string& path) {
                              GPUSCOPE_ASSIGN_OR_RETURN(counts, kWrite(trace, path));
                              return base::Status::Ok();
                            }));
  std::string what = base::FormatCount(counts.gpu_ops) + " GPU ops, " +
                     base::FormatCount(counts.api) + " API calls, " +
                     base::FormatCount(counts.host_ranges) + " host ranges and marks";
  if (!counts.dropped.empty()) {
    what += "; not in this format: ";
    for (size_t i = 0; i < counts.dropped.size(); ++i) {
      what += (i ? ", " : "") + base::FormatCount(counts.dropped[i].second) + " " +
              counts.dropped[i].first;
    }
  }
  return std::vector<ExportedFile>{{out, what, bytes}};
}

base::StatusOr<std::vector<ExportedFile>> WriteNsysFile(const model::Trace& trace,
                                                        const std::string& out,
                                                        const ExportOptions& options) {
  return WriteProfilerDb<output::WriteNsysSqlite>(trace, out, options, ".sqlite");
}

base::StatusOr<std::vector<ExportedFile>> WriteRocpdFile(const model::Trace& trace,
                                                         const std::string& out,
                                                         const ExportOptions& options) {
  return WriteProfilerDb<output::WriteRocpd>(trace, out, options, ".db");
}

base::StatusOr<std::vector<ExportedFile>> WriteCsv(const model::Trace& trace,
                                                   const std::string& out,
                                                   const ExportOptions& options) {
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
  // Every file is written first, then checked against what is there, then put in place: a
  // refusal leaves the directory as it was.
  std::vector<base::AtomicOutput> staged;
  std::vector<ExportedFile> files;
  std::string events = single ? out : path_of("events.csv");
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, base::AtomicOutput::Begin(events, options.inputs));
  GPUSCOPE_ASSIGN_OR_RETURN(auto sink, base::ByteSink::Create(file.temp_path()));
  auto rows = output::WriteEventsCsv(trace, *sink);
  if (!rows.ok()) return rows.status();
  staged.push_back(std::move(file));
  files.push_back({events, base::FormatCount(*rows) + " events", 0});
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
    GPUSCOPE_ASSIGN_OR_RETURN(auto table, base::AtomicOutput::Begin(path, options.inputs));
    GPUSCOPE_ASSIGN_OR_RETURN(auto s, base::ByteSink::Create(table.temp_path()));
    s->Write(StatsTable(st, tb.name).Csv());
    GPUSCOPE_RETURN_IF_ERROR(s->Close());
    staged.push_back(std::move(table));
    files.push_back({path, base::FormatCount(tb.rows) + " rows (stats " + tb.name + ")", 0});
  }
  if (!single) {  // an explicit x.csv names its own files; a directory may hold a user's
    GPUSCOPE_RETURN_IF_ERROR(CheckDirectory(dir, staged, options));
    std::set<std::string> ours = WrittenBefore(dir);
    for (const auto& f : files) ours.insert(fs::path(f.path).filename().string());
    GPUSCOPE_ASSIGN_OR_RETURN(auto list, base::AtomicOutput::Begin(path_of(kManifest)));
    GPUSCOPE_ASSIGN_OR_RETURN(auto names, base::ByteSink::Create(list.temp_path()));
    for (const auto& name : ours) names->Write(name + "\n");
    GPUSCOPE_RETURN_IF_ERROR(names->Close());
    staged.push_back(std::move(list));
  }
  for (size_t k = 0; k < staged.size(); ++k) {
    GPUSCOPE_RETURN_IF_ERROR(staged[k].Commit());
    if (k < files.size()) files[k].bytes = FileBytes(files[k].path);
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
      {"nsys", ".sqlite",
       "an Nsight Systems SQLite export (export schema 3.x tables; ops as emit_nvtx ranges)",
       WriteNsysFile},
      {"rocpd", ".db", "a rocprofv3 rocpd database (schema 3; ops as emit_nvtx roctx ranges)",
       WriteRocpdFile},
      {"csv", ".csv, dir/", "events.csv (one row per event) and the stats tables as CSV", WriteCsv},
  };
  return writers;
}

base::StatusOr<std::string> ExportFormat(const std::string& out, const std::string& to) {
  if (out == "-" && to == "csv") {
    return base::Status::Error(
        "-: CSV tables are several files and cannot go to standard output; give a directory/");
  }
  if (out == "-" && to.empty()) {
    return base::Status::Error("-: give --to json, rpd, nsys or rocpd to write to standard output");
  }
  if (!to.empty()) return to;
  if (out.ends_with(".json") || out.ends_with(".json.gz")) return std::string("json");
  if (out.ends_with(".rpd")) return std::string("rpd");
  if (out.ends_with(".sqlite")) return std::string("nsys");
  if (out.ends_with(".db")) return std::string("rocpd");
  std::error_code ec;
  if (out.ends_with(".csv") || out.ends_with("/") || fs::is_directory(out, ec))
    return std::string("csv");
  return base::Status::Error(
      out +
      ": cannot tell the output format from the name; use .json or .json.gz (Chrome "
      "trace for ui.perfetto.dev), .rpd (rocmProfileData), .sqlite (Nsight Systems export), "
      ".db (rocpd), .csv or a directory/ (CSV tables), or give --to json|rpd|nsys|rocpd|csv");
}

base::StatusOr<std::vector<ExportedFile>> ExportTrace(const model::Trace& trace,
                                                      const std::string& out,
                                                      const std::string& format,
                                                      const ExportOptions& options) {
  for (const Writer& w : Writers()) {
    if (w.name == format) return w.write(trace, out, options);
  }
  return base::Status::Error(out + ": no writer for the format '" + format +
                             "'; `gpuscope help formats` lists them");
}

}  // namespace gpuscope::render
