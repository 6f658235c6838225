#include "import/unknown_format.h"

#include <cctype>

#include "import/registry.h"

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

// "kineto, nsys, rpd, ...": the registry's names.
std::string KnownFormats() {
  std::string out;
  for (const Importer& importer : Importers()) {
    if (!out.empty()) out += ", ";
    out += importer.name;
  }
  return out;
}

}  // namespace

std::string WhatItIs(const std::string& path, const base::FileSniff& sniff) {
  if (path.ends_with(".nsys-rep") || path.ends_with(".qdrep")) {
    std::string stem = path.substr(0, path.rfind('.'));
    return "an Nsight Systems report, which only NVIDIA's tools can read; export it first with: "
           "nsys export --type sqlite --output " +
           stem + ".sqlite " + path + " (then give gpuscope " + stem + ".sqlite)";
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
    return "a rocprofv3 memory allocation or scratch memory trace, which gpuscope reads as part of "
           "a run: give "
           "the run's *_kernel_trace.csv or its directory";
  }
  if (head.rfind("\"Correlation_Id\",\"Dispatch_Id\"", 0) == 0 || head.rfind("\"Pid\",", 0) == 0) {
    return "a rocprofv3 counter collection CSV (hardware counters per dispatch, no timeline)";
  }
  if (head.rfind("\"Sample_Timestamp\",\"Exec_Mask\"", 0) == 0)
    return "a rocprofv3 PC sampling CSV (no timeline)";
  if (head.find("ROCPROFV3 ") != std::string::npos && head.find(" SUMMARY:") != std::string::npos) {
    return "rocprofv3 --summary text; give the trace it summarises (rocpd .db, CSV or JSON), or "
           "the --stats CSV";
  }
  if (head.rfind("pmc:", 0) == 0 || head.rfind("CMD: rocminfo", 0) == 0) {
    return "a rocprof input or sysinfo file, not a trace";
  }
  if (sniff.head.find("Domain(HIP_API_DOMAIN)") != std::string::npos ||
      sniff.head.find("Domain(ROCTX_DOMAIN)") != std::string::npos ||
      sniff.head.find("ROCProfilerV2:") != std::string::npos) {
    return "rocprofv2 command-line text output, which gpuscope does not read; profile with "
           "rocprofv3 "
           "(or rocprofv2 --plugin file) instead";
  }
  if (sniff.head.find("\"schema\"") != std::string::npos &&
      sniff.head.find("\"nodes\"") != std::string::npos) {
    return "a PyTorch execution trace (ExecutionTraceObserver), not a profiler timeline; "
           "give the matching Kineto trace instead";
  }
  return "an unknown format (starts with \"" + Preview(sniff.head) + "\"); gpuscope reads " +
         KnownFormats() + " (`gpuscope help formats` says what each is)";
}

}  // namespace gpuscope::import
