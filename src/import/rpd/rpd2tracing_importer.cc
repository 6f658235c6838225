// rocmProfileData's rpd2tracing.py output (Chrome trace of an .rpd: ops on "GPU<n>" processes
// with args.desc = op type, API calls on OS threads, s/f flows between them). Read by the same
// event reader as legacy rocprof's results.json (common/rocm_chrome_json.h); times are its
// microsecond strings.

#include "import/common/rocm_chrome_json.h"
#include "import/formats.h"

namespace gpuscope::import::rpd {

bool RecognizesRpd2TracingJson(const base::FileSniff& sniff) {
  std::string_view h(sniff.head);
  // rpd2tracing.py writes '[ {}' (or '{"traceEvents": [ {}' with --format object) and
  // '{"name": "process_name", "ph": "M", "pid":"<gpu>"' records.
  bool start = h.rfind("[ {}", 0) == 0 || h.rfind("{\"traceEvents\": [ {}", 0) == 0;
  return start && h.find("{\"name\": \"process_name\", \"ph\": \"M\"") != std::string_view::npos;
}

base::StatusOr<ImportResult> ReadRpd2TracingJson(const std::string& path, const ImportOptions&) {
  return rocm::ReadRocmChromeJson(path, rocm::ChromeJsonFlavor::kRpd2Tracing);
}

}  // namespace gpuscope::import::rpd
