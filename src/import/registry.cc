#include "import/registry.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/sqlite_db.h"
#include "import/directory_import.h"
#include "import/gpuscope_csv/events_csv_importer.h"
#include "import/kineto/kineto_importer.h"
#include "import/nsys/nsys_importer.h"
#include "import/rocpd/rocpd_importer.h"
#include "import/rocprof/rocprof_importers.h"
#include "import/rocprofv3/rocprofv3_csv_importer.h"
#include "import/rocprofv3/rocprofv3_json_importer.h"
#include "import/rpd/rpd2tracing_importer.h"
#include "import/rpd/rpd_importer.h"
#include "import/unknown_format.h"
#include "model/linker.h"

namespace gpuscope::import {

const std::vector<std::unique_ptr<Importer>>& Importers() {
  // Detection order: the most specific signatures first (several formats are Chrome-trace JSON).
  static const auto* list = [] {
    auto* v = new std::vector<std::unique_ptr<Importer>>();
    v->push_back(std::make_unique<rocprofv3::Rocprofv3JsonImporter>());
    v->push_back(std::make_unique<rocprof::RocprofJsonImporter>());
    v->push_back(std::make_unique<rpd::Rpd2TracingJsonImporter>());
    v->push_back(std::make_unique<kineto::KinetoImporter>());
    v->push_back(std::make_unique<nsys::NsysImporter>());
    v->push_back(std::make_unique<rpd::RpdImporter>());
    v->push_back(std::make_unique<rocpd::RocpdImporter>());
    v->push_back(std::make_unique<gpuscope_csv::EventsCsvImporter>());
    v->push_back(std::make_unique<rocprofv3::Rocprofv3CsvImporter>());
    v->push_back(std::make_unique<rocprof::RocprofDbImporter>());
    v->push_back(std::make_unique<rocprof::RocprofCsvImporter>());
    v->push_back(std::make_unique<rocprof::RocprofStatsImporter>());
    v->push_back(std::make_unique<rocprof::RocprofRawImporter>());
    return v;
  }();
  return *list;
}

base::StatusOr<model::Trace> FinishImport(const Importer& importer, const std::string& path,
                                          ImportResult result) {
  model::Trace& trace = result.trace;
  if (trace.meta.path.empty()) trace.meta.path = path;
  trace.meta.format = std::string(importer.name());
  if (trace.EventCount() == 0 && !trace.summary_only()) {
    if (!trace.meta.import_error.empty()) {
      return base::Status::Error(path + ": " + trace.meta.import_error +
                                 "; no event could be read before it");
    }
    return base::Status::Error(path + ": " + result.empty_reason);
  }
  auto t0 = std::chrono::steady_clock::now();
  if (!trace.summary_only()) model::LinkTrace(trace);
  result.laps.emplace_back(
      "link", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  // GPUSCOPE_TIMING=1 prints where import time goes (for bench/, not for users).
  if (std::getenv("GPUSCOPE_TIMING") != nullptr) {
    for (const auto& [what, seconds] : result.laps)
      std::fprintf(stderr, "[timing] %-40s %8.3f s\n", what.c_str(), seconds);
  }
  return std::move(trace);
}

base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options) {
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
  for (const auto& importer : Importers()) {
    if (!importer->Recognizes(sniff)) continue;
    auto t0 = std::chrono::steady_clock::now();
    GPUSCOPE_ASSIGN_OR_RETURN(auto read, importer->Read(path, options));
    read.laps.emplace(read.laps.begin(), "read (" + std::string(importer->name()) + ")",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return FinishImport(*importer, path, std::move(read));
  }
  return base::Status::Error(path + ": not a trace gpuscope can read: " + WhatItIs(path, sniff));
}

}  // namespace gpuscope::import
