#pragma once

#include "import/importer.h"

namespace gpuscope::import::rpd {

// rocmProfileData's rpd2tracing.py output (Chrome trace of an .rpd: ops on "GPU<n>" processes
// with args.desc = op type, API calls on OS threads, s/f flows between them). Read by the same
// event reader as legacy rocprof's results.json (common/rocm_chrome_json.h); times are its
// microsecond strings.
class Rpd2TracingJsonImporter : public Importer {
 public:
  std::string_view name() const override { return "rpd2tracing-json"; }
  std::string_view description() const override { return "rocmProfileData rpd2tracing.py JSON"; }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::rpd
