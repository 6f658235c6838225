#include "import/nsys/nsys_importer.h"

#include "base/sqlite_db.h"
#include "import/nsys/nsys_reader.h"

namespace gpuscope::import::nsys {

using model::Trace;

bool NsysImporter::Recognizes(const base::FileSniff& sniff) const {
  if (!sniff.sqlite || !sniff.Has("StringIds")) return false;
  return sniff.Has("META_DATA_EXPORT") || sniff.Has("TARGET_INFO_SESSION_START_TIME") ||
         sniff.Has("CUPTI_ACTIVITY_KIND_RUNTIME") || sniff.Has("CUPTI_ACTIVITY_KIND_KERNEL");
}

base::StatusOr<ImportResult> NsysImporter::Read(const std::string& path,
                                                const ImportOptions&) const {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::OpenReadOnly(path));
  ImportResult result;
  Trace& trace = result.trace;
  trace.meta.path = path;
  NsysReader reader(db, &trace);
  base::Status st = reader.Read();
  if (!st.ok()) {
    if (trace.EventCount() == 0) return st;
    trace.meta.import_error = st.message();
  }
  result.empty_reason =
      "the Nsight Systems export holds no events (no CUDA, NVTX or OS runtime rows); was anything "
      "traced? "
      "Profile with e.g. nsys profile -t cuda,nvtx,osrt";
  return result;
}

}  // namespace gpuscope::import::nsys
