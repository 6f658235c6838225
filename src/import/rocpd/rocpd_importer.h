#pragma once
// RocpdImporter: rocprofv3's rocpd SQLite databases (`<pid>_results.db`, ROCm 7.0+ default
// output, schema 3.x). Real table names carry a per-process UUID suffix; everything is read
// through the un-suffixed rocpd_* views, with LEFT JOINs (the tool's own data views use INNER
// joins that silently drop rows). Kernel dispatches and memory copies link to their launching
// HIP call through the event's stack_id (the internal correlation id, = rocpd_region.id);
// corr_id is the external id and is not used. Timestamps: CLOCK_BOOTTIME ns.
//
// A run writes one database per process: ReadRocpdFiles merges several into one trace.

#include <string>
#include <vector>

#include "import/importer.h"

namespace gpuscope::import::rocpd {

class RocpdImporter : public Importer {
 public:
  std::string_view name() const override { return "rocpd"; }
  std::string_view description() const override {
    return "rocprofv3 rocpd database (<pid>_results.db; a directory of them for a multi-process "
           "run)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

// Reads and merges the databases of one run (one per process) into one trace.
base::StatusOr<ImportResult> ReadRocpdFiles(const std::vector<std::string>& paths,
                                            const std::string& label);

}  // namespace gpuscope::import::rocpd
