#include "import/registry.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "base/sqlite_db.h"
#include "import/gpuscope/events_csv_importer.h"
#include "import/kineto/kineto_importer.h"
#include "import/nsys/nsys_importer.h"
#include "import/rocm/rocpd_importer.h"
#include "import/rocm/rocprof_legacy.h"
#include "import/rocm/rocprofv3_csv_importer.h"
#include "import/rocm/rocprofv3_json_importer.h"
#include "import/rocm/rpd_importer.h"

namespace gpuscope::import {
namespace {

// Printable summary of the first bytes, for the "unknown format" message.
std::string Preview(std::string_view head) {
  std::string out;
  for (char c : head.substr(0, 24)) {
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '.';
  }
  return out;
}

std::string WhatItIs(const std::string& path, const base::FileSniff& sniff) {
  if (path.ends_with(".nsys-rep") || path.ends_with(".qdrep")) {
    std::string stem = path.substr(0, path.rfind('.'));
    return "an Nsight Systems report, which only NVIDIA's tools can read; export it first with: "
           "nsys export --type sqlite --output " + stem + ".sqlite " + path +
           " (then give gpuscope " + stem + ".sqlite)";
  }
  if (sniff.tar) return "a tar archive; extract it and give gpuscope the trace file inside";
  if (sniff.sqlite) {
    std::string tables;
    size_t n = 0;
    for (const auto& t : sniff.sqlite_objects) {
      if (n++ == 6) {
        tables += ", ...";
        break;
      }
      tables += (tables.empty() ? "" : ", ") + t;
    }
    return "an SQLite database that is not a trace format gpuscope knows (tables: " +
           (tables.empty() ? std::string("none") : tables) +
           "); gpuscope reads Nsight Systems exports (nsys export --type sqlite)";
  }
  if (sniff.zstd) return "zstd-compressed; decompress it first (zstd -d FILE)";
  if (sniff.head.find("\"$schema\"") != std::string::npos) {
    return "a JSON Schema (a format specification), not a trace";
  }
  std::string_view head(sniff.head);
  if (head.rfind("\"Kind\",\"Operation\"", 0) == 0) {
    return "a rocprofv3 memory allocation or scratch memory trace, which gpuscope reads as part of a run: give "
           "the run's *_kernel_trace.csv or its directory";
  }
  if (head.rfind("\"Correlation_Id\",\"Dispatch_Id\"", 0) == 0 || head.rfind("\"Pid\",", 0) == 0) {
    return "a rocprofv3 counter collection CSV (hardware counters per dispatch, no timeline)";
  }
  if (head.rfind("\"Sample_Timestamp\",\"Exec_Mask\"", 0) == 0) return "a rocprofv3 PC sampling CSV (no timeline)";
  if (head.find("ROCPROFV3 ") != std::string::npos && head.find(" SUMMARY:") != std::string::npos) {
    return "rocprofv3 --summary text; give the trace it summarises (rocpd .db, CSV or JSON), or the --stats CSV";
  }
  if (head.rfind("pmc:", 0) == 0 || head.rfind("CMD: rocminfo", 0) == 0) {
    return "a rocprof input or sysinfo file, not a trace";
  }
  if (sniff.head.find("Domain(HIP_API_DOMAIN)") != std::string::npos ||
      sniff.head.find("Domain(ROCTX_DOMAIN)") != std::string::npos ||
      sniff.head.find("ROCProfilerV2:") != std::string::npos) {
    return "rocprofv2 command-line text output, which gpuscope does not read; profile with rocprofv3 "
           "(or rocprofv2 --plugin file) instead";
  }
  if (sniff.head.find("\"schema\"") != std::string::npos &&
      sniff.head.find("\"nodes\"") != std::string::npos) {
    return "a PyTorch execution trace (ExecutionTraceObserver), not a profiler timeline; "
           "give the matching Kineto trace instead";
  }
  return "an unknown format (starts with \"" + Preview(sniff.head) +
         "\"); gpuscope reads PyTorch profiler / Kineto JSON (.json, .json.gz)";
}

// Files under `dir` (at most `depth` levels down: rocprofv3 writes <dir>/<host>/<pid>_*),
// sorted so that imports are deterministic.
std::vector<std::string> ListFiles(const std::string& dir, int depth) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= depth) it.disable_recursion_pending();
    if (it->is_regular_file(ec)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A directory holds the several files of one run: rocprofv3 databases (one per process) or
// CSV traces, or a legacy rocprof results.db.
base::StatusOr<model::Trace> ImportDirectory(const std::string& dir, const ImportOptions& options) {
  std::vector<std::string> files = ListFiles(dir, 3);
  std::vector<std::string> dbs, csvs;
  std::string legacy_db, events_csv;
  for (const auto& f : files) {
    std::string name = std::filesystem::path(f).filename().string();
    if (name == "events.csv") events_csv = f;
    if (name.ends_with("_results.db")) dbs.push_back(f);
    if (name.ends_with("_trace.csv")) csvs.push_back(f);
    if (name == "results.db") legacy_db = f;
  }
  if (!dbs.empty()) return rocm::ImportRocpdFiles(dbs, dir);
  if (!csvs.empty()) {
    // One run = one (folder, file-name prefix); any of its trace CSVs reads all of them.
    std::map<std::string, std::string> runs;  // "folder/prefix" -> a file of that run
    for (const auto& f : csvs) {
      std::string prefix;
      if (!rocm::RunPrefixOf(std::filesystem::path(f).filename().string(), &prefix)) continue;
      std::string key = (std::filesystem::path(f).parent_path() / prefix).string();
      auto [it, inserted] = runs.emplace(key, f);
      if (f.ends_with("kernel_trace.csv")) it->second = f;  // prefer the kernel trace
    }
    if (runs.size() == 1) return ImportTrace(runs.begin()->second, options);
    if (runs.size() > 1) {
      std::string list;
      for (const auto& [key, file] : runs) {
        if (list.size() > 200) {
          list += ", ...";
          break;
        }
        list += (list.empty() ? "" : ", ") + key + "*";
      }
      return base::Status::Error(dir + ": a directory holding " + std::to_string(runs.size()) +
                                 " rocprofv3 CSV runs or processes (" + list + "); give one file of the run to read");
    }
  }
  if (!legacy_db.empty()) return ImportTrace(legacy_db, options);
  if (!events_csv.empty()) return ImportTrace(events_csv, options);  // gpuscope convert -o dir/
  return base::Status::Error(dir + ": a directory without a trace gpuscope recognises (looked for rocprofv3 "
                             "*_results.db and *_trace.csv, legacy rocprof results.db, gpuscope events.csv, " +
                             std::to_string(files.size()) + " files seen); give the trace file itself");
}

}  // namespace

const std::vector<std::unique_ptr<Importer>>& Importers() {
  static const auto* list = [] {
    auto* v = new std::vector<std::unique_ptr<Importer>>();
    v->push_back(std::make_unique<rocm::Rocprofv3JsonImporter>());
    v->push_back(std::make_unique<rocm::RocprofJsonImporter>());
    v->push_back(std::make_unique<rocm::Rpd2TracingJsonImporter>());
    v->push_back(std::make_unique<kineto::KinetoImporter>());
    v->push_back(std::make_unique<nsys::NsysImporter>());
    v->push_back(std::make_unique<rocm::RpdImporter>());
    v->push_back(std::make_unique<rocm::RocpdImporter>());
    v->push_back(std::make_unique<gpuscope_csv::EventsCsvImporter>());
    v->push_back(std::make_unique<rocm::Rocprofv3CsvImporter>());
    v->push_back(std::make_unique<rocm::RocprofDbImporter>());
    v->push_back(std::make_unique<rocm::RocprofCsvImporter>());
    v->push_back(std::make_unique<rocm::RocprofStatsImporter>());
    v->push_back(std::make_unique<rocm::RocprofRawImporter>());
    return v;
  }();
  return *list;
}

base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return ImportDirectory(path, options);
  auto sniff = base::SniffFile(path);
  if (!sniff.ok()) return sniff.status();
  if (sniff->head.empty()) {
    if (!sniff->error.empty()) return base::Status::Error(path + ": " + sniff->error + "; nothing could be read");
    return base::Status::Error(path + ": the file is empty (0 bytes); nothing to read");
  }
  if (sniff->sqlite) {
    // Open the database once to list its tables: SQLite formats are told apart by schema.
    auto db = base::SqliteDb::OpenReadOnly(path);
    if (!db.ok()) return db.status();
    sniff->sqlite_objects = db->objects();
    if (sniff->sqlite_objects.empty()) {
      return base::Status::Error(path + ": an empty SQLite database (no tables); nothing to read");
    }
  }
  for (const auto& importer : Importers()) {
    if (importer->Recognizes(*sniff)) return importer->Import(path, options);
  }
  return base::Status::Error(path + ": not a trace gpuscope can read: " + WhatItIs(path, *sniff));
}

}  // namespace gpuscope::import
