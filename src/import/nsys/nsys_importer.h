#pragma once
// NsysImporter: Nsight Systems SQLite exports (`nsys export --type sqlite`), export schemas 3.x.
// Tables are created lazily by nsys, so a missing table means "not collected"; columns vary by
// version, so every query is built from the columns present. Enumerations (memcpy kind, memory
// kind, event class, sync type, NVTX event type) are always read from the file's ENUM_* tables:
// nsys numbers them differently from CUPTI.

#include "import/importer.h"

namespace gpuscope::import::nsys {

class NsysImporter : public Importer {
 public:
  std::string_view name() const override { return "nsys"; }
  std::string_view description() const override {
    return "Nsight Systems SQLite export (nsys export --type sqlite)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::nsys
