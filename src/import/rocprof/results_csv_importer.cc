// Legacy rocprof results.csv: one row per kernel dispatch, columns by name.

#include "import/common/csv_reader.h"
#include "import/common/rocm_row_builder.h"
#include "import/formats.h"

namespace gpuscope::import::rocprof {

using model::Trace;
using namespace rocm;  // the shared ROCm row builder and name classifiers

bool RecognizesRocprofCsv(const base::FileSniff& sniff) {
  std::string_view h(sniff.head);
  return h.rfind("Index,KernelName,", 0) == 0 || h.rfind("\"Index\",\"KernelName\",", 0) == 0;
}

base::StatusOr<ImportResult> ReadRocprofCsv(const std::string& path, const ImportOptions&) {
  ImportResult result;
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, OpenCsv(path, "CSV", &result.trace.problems));
  CsvReader& r = file.reader;
  const CsvHeader& h = file.header;
  if (!h.Has("BeginNs") || !h.Has("EndNs")) {
    return base::Status::Error(
        path +
        ": a rocprof results.csv without BeginNs/EndNs (counter mode): it has no "
        "timeline; rerun rocprof with --timestamp on (or --stats) to get kernel times");
  }
  Trace& trace = result.trace;
  InitLegacyMeta(trace, path,
                 h.Has("DurationNs") ? "results.csv (quoted, database path)" : "results.csv");
  RocmRowBuilder b(&trace);
  int begin = h["BeginNs"], end = h["EndNs"], gpu = h["gpu-id"], queue = h["queue-id"],
      name = h["KernelName"];
  int grd = h["grd"], wgr = h["wgr"], vgpr = h.Has("arch_vgpr") ? h["arch_vgpr"] : h["vgpr"],
      lds = h["lds"];
  std::vector<std::string_view> f;
  while (r.Next(&f)) {
    int64_t s = Num(Field(f, begin)), e = Num(Field(f, end));
    if (s < 0 || e < 0) {
      trace.problems.Add(
          model::ProblemKind::kRocprofCsvBadTimestamp,
          "line " + std::to_string(r.line()) + ": BeginNs/EndNs not an integer; row skipped");
      continue;
    }
    b.Kernel(s, e, Num(Field(f, gpu)), Field(f, queue), Field(f, name), model::kNoCorrelation,
             {static_cast<uint32_t>(Num(Field(f, grd), 0)), 1, 1},
             {static_cast<uint32_t>(Num(Field(f, wgr), 0)), 1, 1},
             static_cast<uint32_t>(Num(Field(f, vgpr), 0)),
             static_cast<uint32_t>(Num(Field(f, lds), 0)));
  }
  if (!r.error().empty()) trace.meta.import_error = r.error();
  return FinishLegacy(result, b, "the results.csv has a header but no dispatch rows");
}

}  // namespace gpuscope::import::rocprof
