#pragma once
// The entry points of every importer, a pair per format, defined in the format's folder; the
// registry's table (registry.cc) names and orders them. Recognizes* looks at the first bytes or
// the SQLite schema, never at the extension alone; Read* fills an ImportResult (importer.h).

#include <string>
#include <vector>

#include "import/importer.h"

namespace gpuscope::import {

namespace kineto {

// kineto/kineto_importer.cc
bool RecognizesKineto(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadKineto(const std::string& path, const ImportOptions& options);
}  // namespace kineto

namespace nsys {

// nsys/nsys_importer.cc
bool RecognizesNsys(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadNsys(const std::string& path, const ImportOptions& options);
}  // namespace nsys

namespace rpd {

// rpd/rpd_importer.cc
bool RecognizesRpd(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRpd(const std::string& path, const ImportOptions& options);

// rpd/rpd2tracing_importer.cc
bool RecognizesRpd2TracingJson(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRpd2TracingJson(const std::string& path,
                                                 const ImportOptions& options);
}  // namespace rpd

namespace rocpd {

// rocpd/rocpd_importer.cc
bool RecognizesRocpd(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocpd(const std::string& path, const ImportOptions& options);
// Reads and merges the databases of one run (one per process) into one trace.
base::StatusOr<ImportResult> ReadRocpdFiles(const std::vector<std::string>& paths,
                                            const std::string& label, const ImportOptions& options);
}  // namespace rocpd

namespace rocprofv3 {

// rocprofv3/rocprofv3_json_importer.cc
bool RecognizesRocprofv3Json(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofv3Json(const std::string& path,
                                               const ImportOptions& options);

// rocprofv3/rocprofv3_chrome_importer.cc: a kernel trace converted to Chrome JSON by another
// tool (kernel X events with cat "kernel" or "gpu", ".kd" symbol names, no metadata).
bool RecognizesRocprofv3ChromeJson(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofv3ChromeJson(const std::string& path,
                                                     const ImportOptions& options);

// rocprofv3/rocprofv3_csv_importer.cc
bool RecognizesRocprofv3Csv(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofv3Csv(const std::string& path,
                                              const ImportOptions& options);
// For a file name "<prefix><domain>_trace.csv" of a rocprofv3 run, the prefix (which names
// the run and process); false for other names.
bool RunPrefixOf(const std::string& file_name, std::string* prefix);
}  // namespace rocprofv3

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
namespace rocprof {

// rocprof/results_db_importer.cc
bool RecognizesRocprofDb(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofDb(const std::string& path, const ImportOptions& options);

// rocprof/results_csv_importer.cc
bool RecognizesRocprofCsv(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofCsv(const std::string& path, const ImportOptions& options);

// rocprof/results_json_importer.cc
bool RecognizesRocprofJson(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofJson(const std::string& path, const ImportOptions& options);

// rocprof/raw_text_importer.cc
bool RecognizesRocprofRaw(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofRaw(const std::string& path, const ImportOptions& options);

// rocprof/stats_csv_importer.cc
bool RecognizesRocprofStats(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadRocprofStats(const std::string& path,
                                              const ImportOptions& options);
}  // namespace rocprof

namespace gpuscope_csv {

// gpuscope_csv/events_csv_importer.cc
bool RecognizesEventsCsv(const base::FileSniff& sniff);
base::StatusOr<ImportResult> ReadEventsCsv(const std::string& path, const ImportOptions& options);
}  // namespace gpuscope_csv

}  // namespace gpuscope::import
