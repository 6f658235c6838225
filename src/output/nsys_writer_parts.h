#pragma once
// The pieces of the Nsight Systems export writer (internal to src/output): the writer class,
// whose set-up, metadata and host ids are written by nsys_writer.cc and whose event tables by
// nsys_tables_writer.cc.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/sqlite_batch.h"
#include "base/sqlite_db.h"
#include "format/nsys_enums.h"
#include "model/trace.h"
#include "output/profiler_db_common.h"
#include "output/profiler_db_writers.h"
#include "output/sqlite_string_ids.h"
#include "output/track_layout.h"

namespace gpuscope::output::nsys_internal {

using base::SqliteBatchInsert;

namespace enums = format::nsys;
using enums::kDriverClass, enums::kNvtxMark, enums::kNvtxPushPopRange, enums::kOsRuntimeClass,
    enums::kRuntimeClass;
constexpr int64_t kAllStreams = 0xFFFFFFFFll;  // a context-wide sync's streamId
constexpr int64_t kIdBits = 24, kIdLimit = int64_t{1} << kIdBits;

// Writes one trace into an open, empty database.
class NsysWriter {
 public:
  NsysWriter(const model::Trace& t, base::SqliteDb& db)
      : t_(t), db_(db), layout_(LayoutTracks(t)) {}

  base::StatusOr<LossyWriteCounts> Write();

 private:
  base::Status WriteMetadata();
  base::Status WriteEnum(std::string_view table, std::span<const enums::EnumRow> rows);
  base::Status WriteDevices();
  base::Status WriteProcesses();
  base::Status WriteApi();
  base::Status WriteKernels();
  base::Status WriteCopies();
  base::Status WriteSyncs();
  base::Status WriteNvtx();

  // nsys's 24-bit pid and tid of a CPU track, renumbered when the model's do not fit.
  void AssignHostIds();
  int64_t GlobalTid(model::TrackId track) const { return global_tid_[track]; }
  // The globalPid of a GPU row: its launching call's process, else the main process.
  int64_t GlobalPid(model::RowId launch) const;
  // deviceId, streamId of a GPU track.
  std::pair<int64_t, int64_t> GpuIds(model::TrackId track) const;

  const model::Trace& t_;
  base::SqliteDb& db_;
  TrackLayout layout_;
  std::optional<SqliteStringIds> strings_;
  std::vector<int64_t> global_tid_;  // by TrackId (CPU tracks)
  int64_t main_global_pid_ = 0;
  LossyWriteCounts counts_;
};

}  // namespace gpuscope::output::nsys_internal
