#include "import/registry.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/files.h"
#include "base/sqlite_db.h"
#include "base/stage_timer.h"
#include "base/temp_dir.h"
#include "import/directory_import.h"
#include "import/formats.h"
#include "import/unknown_format.h"
#include "model/linker.h"
#include "model/validate.h"

namespace gpuscope::import {

const std::vector<Importer>& Importers() {
  // Detection order: the most specific signatures first (several formats are Chrome-trace JSON).
  static const std::vector<Importer> importers = {
      {"rocprofv3-json", "rocprofv3 JSON (<pid>_results.json[.gz])",
       rocprofv3::RecognizesRocprofv3Json, rocprofv3::ReadRocprofv3Json},
      {"rocprof-json", "legacy rocprof results.json", rocprof::RecognizesRocprofJson,
       rocprof::ReadRocprofJson},
      {"rpd2tracing-json", "rocmProfileData rpd2tracing.py JSON", rpd::RecognizesRpd2TracingJson,
       rpd::ReadRpd2TracingJson},
      {"rocprofv3-chrome-json",
       "rocprofv3 kernel trace converted to Chrome JSON (cat kernel/gpu, .kd names, no metadata)",
       rocprofv3::RecognizesRocprofv3ChromeJson, rocprofv3::ReadRocprofv3ChromeJson},
      {"kineto", "PyTorch profiler / Kineto trace JSON (.json, .json.gz)", kineto::RecognizesKineto,
       kineto::ReadKineto},
      {"nsys", "Nsight Systems SQLite export (nsys export --type sqlite)", nsys::RecognizesNsys,
       nsys::ReadNsys},
      {"rpd", "rocmProfileData trace (.rpd, .rpd.gz)", rpd::RecognizesRpd, rpd::ReadRpd},
      {"rocpd",
       "rocprofv3 rocpd database (<pid>_results.db; a directory of them for a multi-process run)",
       rocpd::RecognizesRocpd, rocpd::ReadRocpd},
      {"gpuscope-csv", "gpuscope's events.csv (gpuscope convert -o dir/)",
       gpuscope_csv::RecognizesEventsCsv, gpuscope_csv::ReadEventsCsv},
      {"rocprofv3-csv", "rocprofv3 CSV traces (*_trace.csv, or their directory)",
       rocprofv3::RecognizesRocprofv3Csv, rocprofv3::ReadRocprofv3Csv},
      {"rocprof-db", "legacy rocprof results.db", rocprof::RecognizesRocprofDb,
       rocprof::ReadRocprofDb},
      {"rocprof-csv", "legacy rocprof results.csv (per dispatch)", rocprof::RecognizesRocprofCsv,
       rocprof::ReadRocprofCsv},
      {"rocprof-stats", "rocprof / rocprofv3 --stats summary CSV (no timeline: stats only)",
       rocprof::RecognizesRocprofStats, rocprof::ReadRocprofStats},
      {"rocprof-raw", "legacy rocprof intermediate hip_api_trace.txt / hcc_ops_trace.txt",
       rocprof::RecognizesRocprofRaw, rocprof::ReadRocprofRaw},
  };
  return importers;
}

const Importer* FindImporter(std::string_view name) {
  for (const Importer& importer : Importers()) {
    if (importer.name == name) return &importer;
  }
  return nullptr;
}

base::StatusOr<model::Trace> FinishImport(const Importer& importer, const std::string& path,
                                          ImportResult result, const ImportOptions& options) {
  model::Trace& trace = result.trace;
  if (trace.meta.path.empty()) trace.meta.path = path;
  trace.meta.format = std::string(importer.name);
  uint64_t read_events = trace.EventCount();
  auto v0 = std::chrono::steady_clock::now();
  model::ValidationResult valid = model::ValidateEvents(trace);
  result.laps.emplace_back(
      "validate", std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count());
  if (read_events > 0 && valid.mostly_invalid) {
    return base::Status::Error(
        path + ": " + std::to_string(valid.dropped) + " of " + std::to_string(valid.checked) +
        " events have a missing, inverted or implausible time (first: " + valid.first_problem +
        "); the file is damaged or not what its format promises - "
        "re-export it from the profiler");
  }
  if (trace.EventCount() == 0 && !trace.summary_only()) {
    if (!trace.meta.import_error.empty()) {
      return base::Status::Error(path + ": " + trace.meta.import_error +
                                 "; no event could be read before it");
    }
    return base::Status::Error(path + ": " + result.empty_reason);
  }
  auto t0 = std::chrono::steady_clock::now();
  if (!trace.summary_only())
    model::LinkTrace(trace, {.align_clocks = options.align_clocks, .threads = options.threads});
  result.laps.emplace_back(
      "link", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  // GPUSCOPE_TIMING=1 prints where import time goes (for bench/, not for users).
  if (base::StageTimer::Enabled()) {
    for (const auto& [what, seconds] : result.laps) base::StageTimer::Print(what.c_str(), seconds);
  }
  return std::move(trace);
}

namespace {

// "-": standard input, spooled to a temporary file first (formats are told apart by their first
// bytes, SQLite needs random access, and a file can be read by several threads).
base::StatusOr<model::Trace> ImportStandardInput(const ImportOptions& options) {
  if (isatty(STDIN_FILENO)) {
    return base::Status::Error(
        "-: standard input is a terminal; pipe a trace in (cat trace.json | gpuscope stats -)");
  }
  GPUSCOPE_ASSIGN_OR_RETURN(base::TempDir dir, base::TempDir::Create("gpuscope-stdin"));
  const std::string file = dir.path() + "/stdin";
  {
    std::FILE* out = std::fopen(file.c_str(), "wb");
    if (!out)
      return base::Status::Error(file + ": cannot spool standard input (" + std::strerror(errno) +
                                 ")");
    std::vector<char> buf(1 << 20);
    for (ssize_t n; (n = read(STDIN_FILENO, buf.data(), buf.size())) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        std::fclose(out);
        return base::Status::Error(std::string("-: cannot read standard input (") +
                                   std::strerror(errno) + ")");
      }
      if (std::fwrite(buf.data(), 1, static_cast<size_t>(n), out) != static_cast<size_t>(n)) {
        std::fclose(out);
        return base::Status::Error(file + ": cannot spool standard input (disk full?)");
      }
    }
    if (std::fclose(out) != 0) return base::Status::Error(file + ": cannot spool standard input");
  }
  auto trace = ImportTrace(file, options);
  if (!trace.ok()) {
    // Name the input as the user gave it, not the spool file.
    std::string message = trace.status().message();
    if (message.starts_with(file)) message.erase(0, file.size()).insert(0, 1, '-');
    return base::Status::Error(message);
  }
  trace->meta.path.assign(1, '-');  // (a char, not "-": GCC 12 -Wrestrict misfires on the literal)
  return trace;
}

}  // namespace

std::string FormatOf(const std::string& path) {
  auto sniff = base::SniffFile(path);
  if (!sniff.ok() || sniff->head.empty()) return "";
  if (sniff->sqlite) {
    auto db = base::SqliteDb::OpenReadOnly(path);
    if (!db.ok()) return "";
    sniff->sqlite_objects = db->objects();
  }
  for (const Importer& importer : Importers()) {
    if (importer.recognizes(*sniff)) return std::string(importer.name);
  }
  return "";
}

base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options) {
  if (path == "-") return ImportStandardInput(options);
  GPUSCOPE_RETURN_IF_ERROR(base::CheckInputPath(path));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return ImportDirectory(path, options);
  GPUSCOPE_ASSIGN_OR_RETURN(auto sniff, base::SniffFile(path));
  if (sniff.head.empty()) {
    if (!sniff.error.empty())
      return base::Status::Error(path + ": " + sniff.error + "; nothing could be read");
    return base::Status::Error(path + ": the file is empty (0 bytes); nothing to read");
  }
  if (sniff.sqlite) {
    // Open the database once to list its tables: SQLite formats are told apart by schema.
    GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::OpenReadOnly(path));
    sniff.sqlite_objects = db.objects();
    if (sniff.sqlite_objects.empty()) {
      return base::Status::Error(path + ": an empty SQLite database (no tables); nothing to read");
    }
  }
  for (const Importer& importer : Importers()) {
    if (!importer.recognizes(sniff)) continue;
    if (options.time_unit_digits >= 0 && importer.name != "kineto") {
      return base::Status::Error(path + ": --time-unit applies to PyTorch/Chrome JSON traces; " +
                                 std::string(importer.name) +
                                 " files state their own unit - drop the option");
    }
    auto t0 = std::chrono::steady_clock::now();
    GPUSCOPE_ASSIGN_OR_RETURN(auto read, importer.read(path, options));
    read.laps.emplace(read.laps.begin(), "read (" + std::string(importer.name) + ")",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return FinishImport(importer, path, std::move(read), options);
  }
  return base::Status::Error(path + ": not a trace gpuscope can read: " + WhatItIs(path, sniff));
}

}  // namespace gpuscope::import
