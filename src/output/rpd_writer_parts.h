#pragma once
// The pieces of the .rpd writer (internal to src/output): the statement helpers, the string-id
// table and the writer class whose tables are written by rpd_writer.cc and rpd_ops_writer.cc.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.h"
#include "base/sqlite_batch.h"
#include "base/sqlite_db.h"
#include "format/rpd_ext.h"
#include "model/trace.h"
#include "output/rpd_writer.h"
#include "output/sqlite_string_ids.h"
#include "output/track_layout.h"

namespace gpuscope::output::rpd_internal {

namespace rpd_ext = format::rpd_ext;

// "INSERT INTO <table>(<columns>) VALUES (?1, ..., ?n)" for a gpuscope extension table.
inline std::string Insert(std::string_view table, std::string_view columns) {
  std::string q = "INSERT INTO " + std::string(table) + "(" + std::string(columns) + ") VALUES (";
  int n = 1 + static_cast<int>(std::count(columns.begin(), columns.end(), ','));
  for (int i = 1; i <= n; ++i) q += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return q + ")";
}

// rocpd_string ids, one per distinct text.
using StringIds = SqliteStringIds;

// rocpd_op.opType of a copy or fill, as rpd_tracer writes it.
inline std::string_view OpType(model::MemopKind k) {
  static constexpr std::string_view kTypes[] = {"CopyHostToDevice",
                                                "CopyDeviceToHost",
                                                "CopyDeviceToDevice",
                                                "CopyHostToHost",
                                                "CopyPeerToPeer",
                                                "FillBuffer",
                                                "Copy"};
  static_assert(base::NamesEvery(kTypes, model::MemopKind::kOther));
  return base::NameOf(kTypes, k, "Copy");
}

// hipMemcpyKind as rpd_tracer stores it in rocpd_copyapi.kind.
inline int64_t HipMemcpyKind(model::MemopKind k) {
  // hipMemcpyHostToDevice 1, DeviceToHost 2, DeviceToDevice 3 (peer copies too), HostToHost 0,
  // hipMemcpyDefault 4 (fills and the unknown).
  static constexpr int64_t kKinds[] = {1, 2, 3, 0, 3, 4, 4};
  static_assert(std::size(kKinds) == model::kMemopKindCount);
  const auto i = static_cast<size_t>(k);
  return i < std::size(kKinds) ? kKinds[i] : 4;
}

// Writes one trace into an open database: the v2 schema, then every table. Split by table:
// rpd_writer.cc (metadata, API calls, markers), rpd_ops_writer.cc (GPU ops, GPU-side ranges,
// monitor samples).
class RpdWriter {
 public:
  RpdWriter(const model::Trace& t, base::SqliteDb& db) : t_(t), db_(db), layout_(LayoutTracks(t)) {}

  base::StatusOr<RpdWriteCounts> Write();

 private:
  base::Status WriteMetadata();

  // rpd's gpuId of a GPU track: its device, else the viewer pid the layout gave it.
  int64_t GpuId(model::TrackId track) const;

  base::Status InsertApi(int64_t id, model::TrackId track, int64_t start, int64_t dur,
                         int64_t name_id, int64_t args_id);

  base::Status InsertExt(int64_t api_id, std::string_view kind, int64_t external_id);

  // API calls keep their order: rocpd_api.id = ApiTable row + 1.
  base::Status WriteApi();

  base::Status WriteOps();

  // CPU ranges and instants as UserMarker rows (args = the text).
  base::Status WriteMarkers();
  // Python frames, packed per run of a thread's frames (format/rpd_python_frames.h).
  base::Status WritePythonFrames();

  // GPU-side ranges (annotations projected on a stream, sync records): rpd has no table for
  // them, so they go to ext_gpuscope_gpurange only (not rocpd_op, whose views count work).
  base::Status WriteGpuRanges();
  // Device allocator events, in ext_gpuscope_memory.
  base::Status WriteMemoryEvents();

  // Counter samples: a value holds from its sample to the next one of its series (rpd's
  // [start, end) convention); the last sample of a series is a point.
  base::Status WriteMonitor();

  const model::Trace& t_;
  base::SqliteDb& db_;
  TrackLayout layout_;
  std::optional<StringIds> strings_;
  // Millions of rows each: written in batches (base/sqlite_batch.h), flushed after the markers.
  std::optional<base::SqliteBatchInsert> api_, ext_api_;
  int64_t empty_ = 0;
  int64_t next_api_id_ = 1;
  RpdWriteCounts counts_;
};

}  // namespace gpuscope::output::rpd_internal
