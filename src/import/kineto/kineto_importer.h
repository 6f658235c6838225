#pragma once
// KinetoImporter: PyTorch profiler / Kineto Chrome-trace JSON, every version seen in the wild
// (PyTorch 1.8 bare arrays with capitalised categories, integer-us traces, 2024+ traces with
// ns decimals and baseTimeNanoseconds), plain or gzip-compressed, CUDA and ROCm builds.
// Plain files above a few MiB are parsed by several threads in speculative segments
// (see kineto_reader.h); gzip is inflated on a second thread while the first parses.

#include "import/importer.h"

namespace gpuscope::import::kineto {

class KinetoImporter : public Importer {
 public:
  std::string_view name() const override { return "kineto"; }
  std::string_view description() const override {
    return "PyTorch profiler / Kineto trace JSON (.json, .json.gz)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::kineto
