#pragma once
// RpdImporter: rocmProfileData `.rpd` files (SQLite, schema v1 tag-less, v2 and v3), plain or
// gzip-compressed. GPU ops become kernels (KernelExecution, and Task = kernels run by a HIP
// graph), copies or fills by their CLR command kind; API rows become HIP/HSA calls linked to
// their ops through rocpd_api_ops; roctx UserMarker rows become annotations; rocpd_monitor rows
// become counters; ext_autogradapi (when a post-processor added it) gives ops. Tracer overhead
// rows are left out of the API calls and counted. Timestamps: CLOCK_MONOTONIC ns.

#include "import/importer.h"

namespace gpuscope::import::rpd {

class RpdImporter : public Importer {
 public:
  std::string_view name() const override { return "rpd"; }
  std::string_view description() const override { return "rocmProfileData trace (.rpd, .rpd.gz)"; }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::rpd
