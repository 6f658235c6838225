// rocprof / rocprofv3 --stats summaries: totals per name, no timeline (a summary-only trace).

#include <filesystem>

#include "base/numbers.h"
#include "import/common/csv_reader.h"
#include "import/common/rocm_row_builder.h"
#include "import/formats.h"

namespace gpuscope::import::rocprof {

using model::Trace;
using namespace rocm;  // the shared ROCm row builder and name classifiers

bool RecognizesRocprofStats(const base::FileSniff& sniff) {
  std::string_view h(sniff.head);
  return h.rfind("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"", 0) == 0;
}

base::StatusOr<ImportResult> ReadRocprofStats(const std::string& path, const ImportOptions&) {
  ImportResult result;
  GPUSCOPE_ASSIGN_OR_RETURN(auto csv, OpenCsv(path, "CSV", &result.trace.problems));
  CsvReader& r = csv.reader;
  const CsvHeader& h = csv.header;
  Trace& trace = result.trace;
  std::string file = std::filesystem::path(path).filename().string();
  bool v3 = h.Has("MinNs");
  InitLegacyMeta(
      trace, path,
      v3 ? "rocprofv3 --stats summary (no timeline)" : "rocprof --stats summary (no timeline)");
  if (v3) trace.meta.producer = "rocprofv3 (rocprofiler-sdk)";
  // The section comes from the file name: *hip_stats / *hip_api_stats / *hsa_* -> API calls,
  // *copy_stats / *memory_copy_stats -> copies, *.stats.csv / *kernel_stats -> kernels.
  model::SummaryRow::Section section = model::SummaryRow::Section::kKernel;
  if (file.find("domain_stats") != std::string::npos) {
    return base::Status::Error(
        path +
        ": a per-domain summary (domain_stats) has no per-name rows to show; give "
        "kernel_stats.csv, hip_api_stats.csv or the trace");
  }
  if (file.find("hip_") != std::string::npos || file.find("hsa_") != std::string::npos ||
      file.find("marker_") != std::string::npos || file.find("rccl_") != std::string::npos) {
    section = model::SummaryRow::Section::kApi;
  } else if (file.find("copy_stats") != std::string::npos) {
    section = model::SummaryRow::Section::kCopy;
  }
  int name = h["Name"], calls = h["Calls"], total = h["TotalDurationNs"], mn = h["MinNs"],
      mx = h["MaxNs"], sd = h["StdDev"];
  std::vector<std::string_view> f;
  while (r.Next(&f)) {
    auto c = base::ParseInt64(Field(f, calls));
    auto t = base::ParseInt64(Field(f, total));
    if (!c || !t) {
      trace.problems.Add(
          model::ProblemKind::kRocprofStatsBadRow,
          "line " + std::to_string(r.line()) + ": Calls/TotalDurationNs not integers; skipped");
      continue;
    }
    model::SummaryRow row;
    row.section = section;
    row.name =
        std::string(section == model::SummaryRow::Section::kKernel ? CleanKernelName(Field(f, name))
                                                                   : Field(f, name));
    if (section == model::SummaryRow::Section::kCopy) {
      OpClass cls = ClassifyOp(row.name);
      row.copy_kind = cls == OpClass::kFill ? model::MemopKind::kMemset : CopyDirection(row.name);
    }
    row.calls = static_cast<uint64_t>(*c);
    row.total_ns = *t;
    if (mn >= 0) row.min_ns = Num(Field(f, mn));
    if (mx >= 0) row.max_ns = Num(Field(f, mx));
    if (sd >= 0) {
      auto d = base::ParseDouble(Field(f, sd));
      row.stddev_ns = d ? static_cast<int64_t>(*d + 0.5) : -1;
    }
    trace.summary.push_back(std::move(row));
  }
  if (trace.summary.empty())
    return base::Status::Error(path + ": the summary CSV has a header but no rows");
  return result;
}

}  // namespace gpuscope::import::rocprof
