#include "import/rpd/rpd2tracing_importer.h"

#include "import/common/rocm_chrome_json.h"

namespace gpuscope::import::rpd {

bool Rpd2TracingJsonImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  // rpd2tracing.py writes '[ {}' (or '{"traceEvents": [ {}' with --format object) and
  // '{"name": "process_name", "ph": "M", "pid":"<gpu>"' records.
  bool start = h.rfind("[ {}", 0) == 0 || h.rfind("{\"traceEvents\": [ {}", 0) == 0;
  return start && h.find("{\"name\": \"process_name\", \"ph\": \"M\"") != std::string_view::npos;
}

base::StatusOr<ImportResult> Rpd2TracingJsonImporter::Read(const std::string& path,
                                                           const ImportOptions&) const {
  return rocm::ReadRocmChromeJson(path, rocm::ChromeJsonFlavor::kRpd2Tracing);
}

}  // namespace gpuscope::import::rpd
