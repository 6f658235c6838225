#include "import/registry.h"

#include <cctype>

#include "import/kineto/kineto_importer.h"

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

std::string WhatItIs(const base::FileSniff& sniff) {
  if (sniff.tar) return "a tar archive; extract it and give gpuscope the trace file inside";
  if (sniff.sqlite) {
    return "an SQLite database that is not a trace format gpuscope reads yet "
           "(supported: PyTorch profiler / Kineto JSON)";
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
  for (const auto& importer : Importers()) {
    if (importer->Recognizes(*sniff)) return importer->Import(path, options);
  }
  return base::Status::Error(path + ": not a trace gpuscope can read: " + WhatItIs(*sniff));
}

}  // namespace gpuscope::import
