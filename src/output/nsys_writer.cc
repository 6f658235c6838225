// WriteNsysSqlite: the trace as an Nsight Systems SQLite export (output/profiler_db_writers.h).
// Host ids follow nsys's layout: globalTid = pid << 24 | tid (model ids that do not fit 24 bits
// are renumbered); GPU rows carry the globalPid of the process that launched them.

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "format/written_by.h"
#include "output/nsys_export_schema.h"
#include "output/nsys_writer_parts.h"

namespace gpuscope::output {
namespace nsys_internal {

void NsysWriter::AssignHostIds() {
  // Ids that fit 24 bits are kept; the others take numbers no kept id uses (pids from 1 up,
  // tids from the top down), so that two processes or threads never share an id.
  auto fits = [](int64_t v) { return v > 0 && v < kIdLimit; };
  std::set<int64_t> kept_pids;
  std::set<std::pair<int64_t, int64_t>> kept_tids;  // (layout pid, tid)
  for (size_t i = 0; i < t_.tracks.size(); ++i) {
    if (t_.tracks[i].kind != model::TrackKind::kCpuThread) continue;
    const TrackView& v = layout_.tracks[i];
    if (fits(v.pid)) kept_pids.insert(v.pid);
    if (fits(v.tid)) kept_tids.emplace(v.pid, v.tid);
  }
  std::map<int64_t, int64_t> pids;                      // layout pid -> nsys pid
  std::map<std::pair<int64_t, int64_t>, int64_t> tids;  // (layout pid, layout tid) -> nsys tid
  int64_t next_pid = 1, next_tid = kIdLimit - 1;
  global_tid_.assign(t_.tracks.size(), 0);
  for (size_t i = 0; i < t_.tracks.size(); ++i) {
    if (t_.tracks[i].kind != model::TrackKind::kCpuThread) continue;
    const TrackView& v = layout_.tracks[i];
    auto [p, new_pid] = pids.emplace(v.pid, v.pid);
    if (new_pid && !fits(v.pid)) {
      while (kept_pids.count(next_pid)) ++next_pid;
      p->second = next_pid++;
    }
    auto [tid, new_tid] = tids.emplace(std::pair{v.pid, v.tid}, v.tid);
    if (new_tid && !fits(v.tid)) {
      while (kept_tids.count({v.pid, next_tid})) --next_tid;
      tid->second = next_tid--;
    }
    global_tid_[i] = (p->second << kIdBits) | tid->second;
  }
  auto main = pids.find(profiler_db::MainPid(t_, layout_));
  if (main != pids.end()) main_global_pid_ = main->second << kIdBits;
}

int64_t NsysWriter::GlobalPid(model::RowId launch) const {
  if (launch == model::kNoRow || launch >= t_.api.size()) return main_global_pid_;
  return (GlobalTid(t_.api.track[launch]) >> kIdBits) << kIdBits;
}

std::pair<int64_t, int64_t> NsysWriter::GpuIds(model::TrackId track) const {
  int64_t stream = layout_.tracks[track].tid;
  return {DeviceIdOf(t_, layout_, track), stream < 0 ? kAllStreams : stream};
}

base::StatusOr<LossyWriteCounts> NsysWriter::Write() {
  GPUSCOPE_RETURN_IF_ERROR(
      db_.Exec("PRAGMA page_size=65536; PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF; "
               "PRAGMA synchronous=OFF; BEGIN;"));
  GPUSCOPE_RETURN_IF_ERROR(db_.Exec(kNsysExportSchema));
  GPUSCOPE_ASSIGN_OR_RETURN(auto ins,
                            db_.Query("INSERT INTO StringIds(id, value) VALUES (?1, ?2)"));
  strings_.emplace(t_, std::move(ins));
  AssignHostIds();
  GPUSCOPE_RETURN_IF_ERROR(WriteMetadata());
  GPUSCOPE_RETURN_IF_ERROR(WriteEnum("ENUM_CUDA_MEMCPY_OPER", enums::kMemcpyOper));
  GPUSCOPE_RETURN_IF_ERROR(WriteEnum("ENUM_CUDA_MEM_KIND", enums::kMemKind));
  GPUSCOPE_RETURN_IF_ERROR(WriteEnum("ENUM_NSYS_EVENT_CLASS", enums::kEventClass));
  GPUSCOPE_RETURN_IF_ERROR(WriteEnum("ENUM_CUPTI_SYNC_TYPE", enums::kSyncType));
  GPUSCOPE_RETURN_IF_ERROR(WriteEnum("ENUM_NSYS_EVENT_TYPE", enums::kNvtxEventType));
  GPUSCOPE_RETURN_IF_ERROR(WriteDevices());
  GPUSCOPE_RETURN_IF_ERROR(WriteProcesses());
  GPUSCOPE_RETURN_IF_ERROR(WriteApi());
  GPUSCOPE_RETURN_IF_ERROR(WriteKernels());
  GPUSCOPE_RETURN_IF_ERROR(WriteCopies());
  GPUSCOPE_RETURN_IF_ERROR(WriteSyncs());
  GPUSCOPE_RETURN_IF_ERROR(WriteNvtx());
  profiler_db::CountCommonDrops(t_, counts_);
  GPUSCOPE_RETURN_IF_ERROR(db_.Exec("COMMIT;"));
  return counts_;
}

base::Status NsysWriter::WriteMetadata() {
  GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                            db_.Query("INSERT INTO META_DATA_EXPORT(name, value) VALUES (?1, ?2)"));
  const std::pair<std::string_view, std::string_view> rows[] = {
      {"EXPORT_PRODUCT_NAME", format::ExportedBy(t_.meta.properties)},
      {"EXPORT_SCHEMA_VERSION", "3.24.0"},
      {"EXPORT_SCHEMA_VERSION_MAJOR", "3"},
      {"EXPORT_SCHEMA_VERSION_MINOR", "24"},
      {"EXPORT_PARAM_INPUT_FILE", t_.meta.path},
      {"GPUSCOPE_SOURCE_FORMAT", t_.meta.format},
      {"GPUSCOPE_SOURCE_PRODUCER", t_.meta.producer}};
  for (auto [name, value] : rows) {
    q.Bind(1, name);
    q.Bind(2, value);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  if (t_.meta.base_time_ns == 0) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto s, db_.Query("INSERT INTO TARGET_INFO_SESSION_START_TIME(utcEpochNs) VALUES (?1)"));
  s.Bind(1, t_.meta.base_time_ns);
  return s.Run();
}

base::Status NsysWriter::WriteEnum(std::string_view table, std::span<const enums::EnumRow> rows) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query("INSERT INTO " + std::string(table) +
                                              "(id, name, label) VALUES (?1, ?2, ?3)"));
  for (const enums::EnumRow& r : rows) {
    q.Bind(1, r.id);
    q.Bind(2, r.name);
    q.Bind(3, r.label);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  return base::Status::Ok();
}

}  // namespace nsys_internal

base::StatusOr<LossyWriteCounts> WriteNsysSqlite(const model::Trace& trace,
                                                 const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::Create(path));
  nsys_internal::NsysWriter writer(trace, db);
  auto counts = writer.Write();
  if (!counts.ok()) {
    return base::Status::Error(
        path + ": writing the Nsight Systems export failed: " + counts.status().message());
  }
  return counts;
}

}  // namespace gpuscope::output
