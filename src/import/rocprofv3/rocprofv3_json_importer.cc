// rocprofv3 `-f json` output (`<pid>_results.json[.gz]`): one element of
// "rocprofiler-sdk-tool" per process, with kernel dispatches, memory copies (with bytes) and
// HIP/HSA/marker/RCCL API records in "buffer_records". Record kinds and operations are integers
// resolved through "strings.buffer_records" (their numbering changes between versions), kernel
// names through "kernel_symbols", agents through "agents". Timestamps: CLOCK_BOOTTIME ns.
// The decompressed document is held in memory while it is walked (no DOM is built).

#include "import/formats.h"
#include "import/rocprofv3/rocprofv3_json_reader.h"

namespace gpuscope::import::rocprofv3 {

using model::Trace;

bool RecognizesRocprofv3Json(const base::FileSniff& sniff) {
  auto pos = sniff.head.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (pos == std::string::npos || sniff.head[pos] != '{') return false;
  // The document's first key (a JSON Schema that mentions the key is not output).
  auto key = sniff.head.find_first_not_of(" \t\r\n", pos + 1);
  return key != std::string::npos && sniff.head.compare(key, 22, "\"rocprofiler-sdk-tool\"") == 0;
}

base::StatusOr<ImportResult> ReadRocprofv3Json(const std::string& path, const ImportOptions&) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  std::string doc;
  std::string error;
  {
    std::string chunk(4 << 20, '\0');
    for (;;) {
      long long n = src->Read(chunk.data(), chunk.size());
      if (n < 0) {
        error = src->error();
        break;
      }
      if (n == 0) break;
      doc.append(chunk.data(), static_cast<size_t>(n));
    }
  }
  size_t size = doc.size();
  doc.append(kJsonPadding, '\0');
  ImportResult result;
  Trace& trace = result.trace;
  trace.meta.path = path;
  trace.meta.producer = "rocprofv3 (rocprofiler-sdk)";
  trace.meta.clock = "CLOCK_BOOTTIME (ns)";
  JsonWalker w(doc.data(), doc.data() + size);
  int processes = 0;
  bool ok = w.Object([&](std::string_view key) {
    if (key != "rocprofiler-sdk-tool") return w.Skip();
    return w.Array([&] {
      ProcessReader p(&w, &trace, static_cast<uint64_t>(processes++) << 40);
      bool good = p.Read();
      p.Build();  // keep what was read even when the element broke part-way
      return good;
    });
  });
  if (!ok || !error.empty()) {
    std::string where =
        !error.empty() ? error : "at byte " + std::to_string(w.error_offset()) + ": " + w.error();
    if (trace.EventCount() == 0)
      return base::Status::Error(path + ": " + where + "; nothing usable was read");
    trace.meta.import_error = where;
  }
  trace.meta.format_version =
      std::to_string(processes) + (processes == 1 ? " process" : " processes");
  result.empty_reason =
      "the rocprofv3 JSON holds no records (no kernel dispatches, copies or API calls); run "
      "rocprofv3 with e.g. "
      "--runtime-trace";
  return result;
}

}  // namespace gpuscope::import::rocprofv3
