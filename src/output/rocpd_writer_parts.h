#pragma once
// The pieces of the rocpd writer (internal to src/output): the writer class, whose schema,
// metadata and info tables are written by rocpd_writer.cc and whose events (regions, kernel
// dispatches, copies, marker ranges and samples) by rocpd_tables_writer.cc.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sqlite_batch.h"
#include "base/sqlite_db.h"
#include "model/trace.h"
#include "output/profiler_db_common.h"
#include "output/profiler_db_writers.h"
#include "output/sqlite_string_ids.h"
#include "output/track_layout.h"

namespace gpuscope::output::rocpd_internal {

using base::SqliteBatchInsert;

// Event categories as rocprofv3 names them (rocpd_event.category_id -> rocpd_string).
inline constexpr std::string_view kHipCategory = "HIP_RUNTIME_API_EXT";
inline constexpr std::string_view kHsaCategory = "HSA_CORE_API";
inline constexpr std::string_view kKernelCategory = "KERNEL_DISPATCH";
inline constexpr std::string_view kCopyCategory = "MEMORY_COPY";
inline constexpr std::string_view kMarkerCategory = "MARKER_CORE_API";
// The roctx call a range is recorded under; its text is the event's extdata message.
inline constexpr std::string_view kRangePush = "roctxRangePushA";
inline constexpr int64_t kNode = 1;

// Writes one trace into an open, empty database.
class RocpdWriter {
 public:
  RocpdWriter(const model::Trace& t, base::SqliteDb& db);

  base::StatusOr<LossyWriteCounts> Write();

 private:
  // "rocpd_region" -> "rocpd_region_<uuid>": the table behind the view.
  std::string Table(std::string_view view) const { return std::string(view) + uuid_; }

  base::Status WriteMetadata();
  base::Status WriteProcessesAndThreads();
  base::Status WriteAgentsAndQueues();
  base::Status WriteKernelSymbols();

  // One rocpd_event row (category, stack_id = correlation, extdata): returns its id.
  base::StatusOr<int64_t> Event(std::string_view category, uint64_t correlation,
                                std::string_view extdata);
  base::Status WriteApi();
  base::Status WriteKernels();
  base::Status WriteCopies();
  base::Status WriteMarkers();
  base::Status WriteSamples();

  // The process of a GPU row: its launching call's, else the main process.
  int64_t PidOf(model::RowId launch) const;
  int64_t AgentOf(model::TrackId track) const;

  const model::Trace& t_;
  base::SqliteDb& db_;
  TrackLayout layout_;
  std::string uuid_, guid_;  // "_0000aaaa_...", "0000aaaa-..."
  std::optional<SqliteStringIds> strings_;
  std::optional<SqliteBatchInsert> events_;
  int64_t next_event_ = 1;
  int64_t main_pid_ = 0;
  std::vector<int64_t> queue_of_;              // by TrackId (GPU tracks)
  std::map<model::StringId, int64_t> symbol_;  // kernel name -> rocpd_info_kernel_symbol id
  LossyWriteCounts counts_;
};

}  // namespace gpuscope::output::rocpd_internal
