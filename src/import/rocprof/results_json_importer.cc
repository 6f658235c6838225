// Legacy rocprof results.json, read by the ROCm Chrome-JSON reader.

#include "import/common/rocm_chrome_json.h"
#include "import/formats.h"

namespace gpuscope::import::rocprof {

using model::Trace;
using namespace rocm;  // the shared ROCm row builder and name classifiers

bool RecognizesRocprofJson(const base::FileSniff& sniff) {
  std::string_view h(sniff.head);
  // tblextr.py's writer: '{ "traceEvents":[{}' then one event per line starting with ",{",
  // and process_name records with "sort_index"; a fragment starts directly with ",{".
  bool start = h.rfind("{ \"traceEvents\":[{}", 0) == 0 || h.rfind(",{\"args\":{\"name\":", 0) == 0;
  return start && h.find("\"name\":\"process_name\",\"sort_index\"") != std::string_view::npos;
}

base::StatusOr<ImportResult> ReadRocprofJson(const std::string& path, const ImportOptions&) {
  return ReadRocmChromeJson(path, ChromeJsonFlavor::kRocprof);
}

}  // namespace gpuscope::import::rocprof
