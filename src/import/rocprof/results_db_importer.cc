// Legacy rocprof results.db (tblextr.py tables KERN/OPS/COPY/HIP/HSA/rocTX).

#include "base/sqlite_db.h"
#include "import/common/rocm_row_builder.h"
#include "import/common/sqlite_columns.h"
#include "import/formats.h"

namespace gpuscope::import::rocprof {

using model::Trace;
using namespace rocm;  // the shared ROCm row builder and name classifiers

bool RecognizesRocprofDb(const base::FileSniff& sniff) {
  if (!sniff.sqlite) return false;
  int legacy = 0;
  for (const char* t : {"KERN", "HIP", "HSA", "OPS", "COPY", "rocTX"}) legacy += sniff.Has(t);
  return legacy >= 1 && !sniff.Has("rocpd_op") && !sniff.Has("StringIds");
}

base::StatusOr<ImportResult> ReadRocprofDb(const std::string& path, const ImportOptions&) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::OpenReadOnly(path));
  ImportResult result;
  Trace& trace = result.trace;
  InitLegacyMeta(trace, path, "results.db (tblextr.py tables)");
  RocmRowBuilder b(&trace);
  auto count = [&](const char* table) {
    return db.Has(table) ? db.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0) : 0;
  };
  // With --hip-trace the kernels are the HIP ops (OPS, linked by Index); otherwise KERN.
  bool use_ops = count("OPS") > 0;
  auto read = [&](const std::string& table, std::initializer_list<std::string_view> cols,
                  auto&& row) -> base::Status {
    ColumnSet c(db, table);
    if (!c.Has("BeginNs") || !c.Has("EndNs")) {
      if (count(table.c_str()) > 0) {
        trace.problems.Add(model::ProblemKind::kRocprofTableWithoutTimestamps,
                           table + " has no BeginNs/EndNs columns; skipped");
      }
      return base::Status::Ok();
    }
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q, db.Query("SELECT " + c.Select(cols) + " FROM " + base::SqlIdent(table)));
    while (q.Step()) row(q);
    return q.status();
  };
  base::Status st;
  if (use_ops) {
    st = read("OPS", {"BeginNs", "EndNs", "dev-id", "queue-id", "Name", "Index"},
              [&](const base::SqliteQuery& q) {
                b.Op(TimeAt(q, 0), TimeAt(q, 1), q.Int(2), q.Text(3), q.Text(4),
                     q.IsNull(5) ? model::kNoCorrelation : q.Int(5));
              });
  } else if (db.Has("KERN")) {
    st = read(
        "KERN",
        {"BeginNs", "EndNs", "gpu-id", "queue-id", "KernelName", "grd", "wgr", "arch_vgpr", "lds"},
        [&](const base::SqliteQuery& q) {
          b.Kernel(TimeAt(q, 0), TimeAt(q, 1), q.Int(2), q.Text(3), q.Text(4),
                   model::kNoCorrelation, {static_cast<uint32_t>(q.Int(5)), 1, 1},
                   {static_cast<uint32_t>(q.Int(6)), 1, 1}, static_cast<uint32_t>(q.Int(7)),
                   static_cast<uint32_t>(q.Int(8)));
        });
  }
  if (st.ok() && db.Has("COPY")) {
    st = read("COPY", {"BeginNs", "EndNs", "dev-id", "queue-id", "Name", "Index"},
              [&](const base::SqliteQuery& q) {
                b.Op(TimeAt(q, 0), TimeAt(q, 1), q.IsNull(2) ? -1 : q.Int(2), q.Text(3), q.Text(4),
                     q.IsNull(5) ? model::kNoCorrelation : q.Int(5));
              });
  }
  for (const char* api : {"HIP", "HSA"}) {
    if (!st.ok() || !db.Has(api)) continue;
    bool hsa = std::string_view(api) == "HSA";
    st = read(api, {"BeginNs", "EndNs", "pid", "tid", "Name", "Index", "args"},
              [&](const base::SqliteQuery& q) {
                b.Api(TimeAt(q, 0), TimeAt(q, 1), q.Text(2), q.Text(3), q.Text(4),
                      q.IsNull(5) ? model::kNoCorrelation : q.Int(5), q.Text(6), hsa);
              });
  }
  if (st.ok() && db.Has("rocTX")) {
    st = read("rocTX", {"BeginNs", "EndNs", "pid", "tid", "Name"}, [&](const base::SqliteQuery& q) {
      b.Marker(TimeAt(q, 0), TimeAt(q, 1), q.Text(2), q.Text(3), q.Text(4));
    });
  }
  if (!st.ok()) {
    if (trace.EventCount() == 0) return st;
    trace.meta.import_error = st.message();
  }
  return FinishLegacy(
      result, b,
      "the results.db holds no timed rows (KERN/OPS/COPY/HIP/HSA are empty or lack BeginNs/EndNs); "
      "rerun rocprof with --stats or --hip-trace");
}

}  // namespace gpuscope::import::rocprof
