#pragma once
// Importers for the legacy `rocprof` (v1, rpl_run.sh + tblextr.py; deprecated since ROCm 6.4)
// outputs. Timestamps are HSA system clock ns (CLOCK_BOOTTIME domain).
//  - results.db (SQLite: KERN, HIP, HSA, OPS, COPY, rocTX tables);
//  - results.csv (one row per kernel dispatch, dynamic columns, both quoting styles);
//  - results.json (Chrome trace with string ts/dur; exact ns from args.BeginNs/EndNs; a
//    truncated fragment keeps the events that are whole);
//  - the raw intermediate hip_api_trace.txt / hcc_ops_trace.txt of rpl_data_* directories;
//  - *.stats.csv, *.hip_stats.csv, *.hsa_stats.csv, *.copy_stats.csv: summaries without a
//    timeline, imported as a summary-only trace that `stats` prints and other commands refuse.
// Copy sizes come from the launching call's sizeBytes argument when the trace has it.

#include "import/importer.h"

namespace gpuscope::import::rocprof {

class RocprofDbImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprof-db"; }
  std::string_view description() const override { return "legacy rocprof results.db"; }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

class RocprofCsvImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprof-csv"; }
  std::string_view description() const override {
    return "legacy rocprof results.csv (per dispatch)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

class RocprofJsonImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprof-json"; }
  std::string_view description() const override { return "legacy rocprof results.json"; }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

class RocprofRawImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprof-raw"; }
  std::string_view description() const override {
    return "legacy rocprof intermediate hip_api_trace.txt / hcc_ops_trace.txt";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

class RocprofStatsImporter : public Importer {
 public:
  std::string_view name() const override { return "rocprof-stats"; }
  std::string_view description() const override {
    return "rocprof / rocprofv3 --stats summary CSV (no timeline: stats only)";
  }
  bool Recognizes(const base::FileSniff& sniff) const override;
  base::StatusOr<ImportResult> Read(const std::string& path,
                                    const ImportOptions& options) const override;
};

}  // namespace gpuscope::import::rocprof
