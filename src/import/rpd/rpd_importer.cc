// rocmProfileData `.rpd` files (SQLite, schema v1 tag-less, v2 and v3), plain or
// gzip-compressed. GPU ops become kernels (KernelExecution, and Task = kernels run by a HIP
// graph), copies or fills by their CLR command kind; API rows become HIP/HSA calls linked to
// their ops through rocpd_api_ops; roctx UserMarker rows become annotations; rocpd_monitor rows
// become counters; ext_autogradapi (when a post-processor added it) gives ops. Tracer overhead
// rows are left out of the API calls and counted. Timestamps: CLOCK_MONOTONIC ns.

#include "base/sqlite_db.h"
#include "import/formats.h"
#include "import/rpd/rpd_reader.h"

namespace gpuscope::import::rpd {

bool RecognizesRpd(const base::FileSniff& sniff) {
  // rocpd_op is rpd's own; rocprofv3's rocpd databases have rocpd_* names but no rocpd_op. The
  // other tables it needs are checked by ReadRpd, which names the missing one.
  return sniff.sqlite && sniff.Has("rocpd_op") && !sniff.Has("rocpd_kernel_dispatch");
}

base::StatusOr<ImportResult> ReadRpd(const std::string& path, const ImportOptions&) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::OpenReadOnly(path));
  std::string missing;
  for (const char* table : {"rocpd_op", "rocpd_api", "rocpd_string"}) {
    if (!db.Has(table)) missing += (missing.empty() ? "" : ", ") + std::string(table);
  }
  if (!missing.empty()) {
    return base::Status::Error(path + ": an .rpd (rocmProfileData) without the table(s) " +
                               missing + ": the file is damaged or was cut while written; " +
                               "record it again");
  }
  ImportResult result;
  result.trace.meta.path = path;
  RpdReader reader(db, &result.trace);
  base::Status st = reader.Read();
  if (!st.ok()) {
    if (result.trace.EventCount() == 0) return st;
    result.trace.meta.import_error = st.message();
  }
  result.empty_reason =
      "the .rpd holds no events (no GPU ops, API calls, markers or monitor samples); was the "
      "tracer started "
      "(RPDT_AUTOSTART=0 needs rpdTracerControl.start())?";
  return result;
}

}  // namespace gpuscope::import::rpd
