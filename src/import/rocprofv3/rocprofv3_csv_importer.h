#pragma once
// Rocprofv3CsvImporter: rocprofv3 CSV output (`<prefix>kernel_trace.csv`,
// `memory_copy_trace.csv`, `hip_api_trace.csv`, `hsa_api_trace.csv`, `marker_api_trace.csv`, ...).
// Given one `*_trace.csv`, it reads every trace CSV of the same run (same directory, same
// prefix); given a directory, the registry picks one of them. Three header generations exist
// (ROCm 6.2, 6.3, 6.4/7.x, plus `rocpd convert` output with a leading "Guid"): columns are
// always found by name. The memory-copy CSV has no byte counts: sizes stay unknown, never 0.

#include "import/importer.h"

namespace gpuscope::import::rocprofv3 {

class Rocprofv3CsvImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprofv3-csv"; }
  std::string_view description() const override {
    return "rocprofv3 CSV traces (*_trace.csv, or their directory)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

// For a file name "<prefix><domain>_trace.csv" of a rocprofv3 run, the prefix (which names
// the run and process); false for other names.
bool RunPrefixOf(const std::string& file_name, std::string* prefix);

}  // namespace gpuscope::import::rocprofv3
