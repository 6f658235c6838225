#pragma once
// Rocprofv3JsonImporter: rocprofv3 `-f json` output (`<pid>_results.json[.gz]`): one element of
// "rocprofiler-sdk-tool" per process, with kernel dispatches, memory copies (with bytes) and
// HIP/HSA/marker/RCCL API records in "buffer_records". Record kinds and operations are integers
// resolved through "strings.buffer_records" (their numbering changes between versions), kernel
// names through "kernel_symbols", agents through "agents". Timestamps: CLOCK_BOOTTIME ns.
// The decompressed document is held in memory while it is walked (no DOM is built).

#include "import/importer.h"

namespace gpuscope::import::rocprofv3 {

class Rocprofv3JsonImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprofv3-json"; }
  std::string_view description() const override {
    return "rocprofv3 JSON (<pid>_results.json[.gz])";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::rocprofv3
