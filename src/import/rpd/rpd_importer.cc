#include "import/rpd/rpd_importer.h"

#include "base/sqlite_db.h"
#include "import/rpd/rpd_reader.h"

namespace gpuscope::import::rpd {

bool RpdImporter::Recognizes(const base::FileSniff& sniff) const {
  return sniff.sqlite && sniff.Has("rocpd_op") && sniff.Has("rocpd_api") &&
         sniff.Has("rocpd_string") &&
         // rocprofv3's rocpd databases also have rocpd_* names but no rocpd_op.
         !sniff.Has("rocpd_kernel_dispatch");
}

base::StatusOr<ImportResult> RpdImporter::Read(const std::string& path,
                                               const ImportOptions&) const {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::OpenReadOnly(path));
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
