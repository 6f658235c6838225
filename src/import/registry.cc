#include "import/registry.h"

#include <cctype>

#include "base/sqlite_db.h"
#include "import/kineto/kineto_importer.h"
#include "import/nsys/nsys_importer.h"

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

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string WhatItIs(const std::string& path, const base::FileSniff& sniff) {
  if (EndsWith(path, ".nsys-rep") || EndsWith(path, ".qdrep")) {
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
  if (sniff.head.find("\"rocprofiler-sdk-tool\"") != std::string::npos) {
    return "rocprofv3 JSON output, which gpuscope does not read yet";
  }
  if (sniff.head.find("\"schema\"") != std::string::npos &&
      sniff.head.find("\"nodes\"") != std::string::npos) {
    return "a PyTorch execution trace (ExecutionTraceObserver), not a profiler timeline; "
           "give the matching Kineto trace instead";
  }
  return "an unknown format (starts with \"" + Preview(sniff.head) +
         "\"); gpuscope reads PyTorch profiler / Kineto JSON (.json, .json.gz)";
}

}  // namespace

const std::vector<std::unique_ptr<Importer>>& Importers() {
  static const auto* list = [] {
    auto* v = new std::vector<std::unique_ptr<Importer>>();
    v->push_back(std::make_unique<kineto::KinetoImporter>());
    v->push_back(std::make_unique<nsys::NsysImporter>());
    return v;
  }();
  return *list;
}

base::StatusOr<model::Trace> ImportTrace(const std::string& path, const ImportOptions& options) {
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
