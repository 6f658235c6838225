#include "import/nsys/nsys_importer.h"

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "base/sqlite_db.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"

namespace gpuscope::import::nsys {
namespace {

using base::SqliteDb;
using model::MemopKind;
using model::MemoryKind;
using model::Trace;

// globalTid / globalPid layout (nsys docs, cuda_kern_exec_trace.py): bits 24..47 the OS pid,
// bits 0..23 the OS tid, the high bits a VM/host id.
int64_t PidOf(int64_t global) { return (global >> 24) & 0xFFFFFF; }
int64_t TidOf(int64_t global) { return global & 0xFFFFFF; }
int64_t ProcessKey(int64_t global) { return global >> 24; }

// One ENUM_* table: id -> (name, label).
struct EnumTable {
  std::map<int64_t, std::pair<std::string, std::string>> rows;
  bool present = false;
  std::string_view Name(int64_t id) const {
    auto it = rows.find(id);
    return it == rows.end() ? std::string_view() : std::string_view(it->second.first);
  }
  std::string_view Label(int64_t id) const {
    auto it = rows.find(id);
    return it == rows.end() ? std::string_view() : std::string_view(it->second.second);
  }
};

EnumTable LoadEnum(const SqliteDb& db, std::string_view table) {
  EnumTable e;
  if (!db.Has(table)) return e;
  ColumnSet cols(db, table);
  auto q = db.Query("SELECT " + cols.Select({"id", "name", "label"}) + " FROM " + base::SqlIdent(table));
  if (!q.ok()) return e;
  e.present = true;
  while (q->Step()) e.rows[q->Int(0)] = {std::string(q->Text(1)), std::string(q->Text(2))};
  return e;
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as nsys's cuda_api_sum shows it.
std::string_view StripVersionSuffix(std::string_view name) {
  auto pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 == name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, pos);
}

// ENUM_CUDA_MEMCPY_OPER name -> direction. Array and unified-memory copies fold into the
// direction they move data in; names, not numbers, so any renumbering is harmless.
MemopKind CopyDirection(std::string_view enum_name) {
  auto has = [&](std::string_view s) { return enum_name.find(s) != std::string_view::npos; };
  if (has("HTOD") || has("HTOA")) return MemopKind::kHtoD;
  if (has("DTOH") || has("ATOH")) return MemopKind::kDtoH;
  if (has("DTOD") || has("ATOA") || has("ATOD") || has("DTOA")) return MemopKind::kDtoD;
  if (has("HTOH")) return MemopKind::kHtoH;
  if (has("PTOP")) return MemopKind::kPtoP;
  return MemopKind::kOther;
}

// Text emitted by torch.autograd.profiler.emit_nvtx: "aten::mm, seq = 3, op_id = 7, sizes = ..."
// -> "aten::mm" (an op), else empty (a user annotation).
std::string_view EmitNvtxOpName(std::string_view text) {
  auto comma = text.find(", ");
  if (comma == std::string_view::npos) return {};
  std::string_view rest = text.substr(comma + 2);
  for (std::string_view key : {"seq = ", "op_id = ", "sizes = ", "input_op_ids = "}) {
    if (rest.rfind(key, 0) == 0) return text.substr(0, comma);
  }
  return {};
}

class NsysReader {
 public:
  NsysReader(const SqliteDb& db, Trace* trace) : db_(db), t_(*trace), strings_(db, trace, kStringSql) {}

  base::Status Read() {
    ReadMetadata();
    memcpy_oper_ = LoadEnum(db_, "ENUM_CUDA_MEMCPY_OPER");
    mem_kind_ = LoadEnum(db_, "ENUM_CUDA_MEM_KIND");
    event_class_ = LoadEnum(db_, "ENUM_NSYS_EVENT_CLASS");
    sync_type_ = LoadEnum(db_, "ENUM_CUPTI_SYNC_TYPE");
    event_type_ = LoadEnum(db_, "ENUM_NSYS_EVENT_TYPE");
    ReadDevices();
    ReadProcessesAndThreads();
    multi_process_ = CountCudaProcesses() > 1;
    GPUSCOPE_RETURN_IF_ERROR(ReadRuntime());
    GPUSCOPE_RETURN_IF_ERROR(ReadKernels());
    GPUSCOPE_RETURN_IF_ERROR(ReadMemcpy());
    GPUSCOPE_RETURN_IF_ERROR(ReadMemset());
    GPUSCOPE_RETURN_IF_ERROR(ReadSync());
    GPUSCOPE_RETURN_IF_ERROR(ReadNvtx());
    GPUSCOPE_RETURN_IF_ERROR(ReadOsRuntime());
    CountOtherRecords();
    return base::Status::Ok();
  }

 private:
  static constexpr std::string_view kStringSql = "SELECT value FROM StringIds WHERE id = ?1";

  // Table present? If not, note what was not collected.
  bool Collected(std::string_view table, std::string_view what) {
    if (db_.Has(table)) return true;
    t_.meta.not_collected.push_back(std::string(what) + " (no " + std::string(table) + " table)");
    return false;
  }

  // A table without the columns every nsys version writes is skipped as a whole (counted),
  // rather than read with made-up values.
  bool HasRequired(const ColumnSet& c, std::string_view table, std::initializer_list<std::string_view> required) {
    std::string missing = c.Missing(required);
    if (missing.empty()) return true;
    t_.problems.Add("nsys.table_missing_columns",
                    std::string(table) + " lacks column(s) " + missing + "; the table was skipped");
    return false;
  }

  // Fails on a read error mid-table: that is a damaged file, not a recoverable event.
  base::Status Finish(const base::SqliteQuery& q) { return q.status(); }

  void ReadMetadata() {
    t_.meta.clock = "nsys session timeline (ns since the session start)";
    if (db_.Has("META_DATA_EXPORT")) {
      if (auto q = db_.Query("SELECT name, value FROM META_DATA_EXPORT"); q.ok()) {
        while (q->Step()) t_.meta.properties[std::string(q->Text(0))] = std::string(q->Text(1));
      }
    }
    auto prop = [&](const char* k) {
      auto it = t_.meta.properties.find(k);
      return it == t_.meta.properties.end() ? std::string() : it->second;
    };
    std::string schema = prop("EXPORT_SCHEMA_VERSION");
    t_.meta.format_version = schema.empty() ? "export schema unknown (no META_DATA_EXPORT)" : "export schema " + schema;
    std::string product = prop("EXPORT_PRODUCT_NAME");
    t_.meta.producer = (product.empty() ? "Nsight Systems" : product) +
                       (prop("EXPORT_PRODUCT_VERSION").empty() ? "" : " " + prop("EXPORT_PRODUCT_VERSION"));
    if (db_.Has("TARGET_INFO_SESSION_START_TIME")) {
      t_.meta.base_time_ns = db_.QueryInt("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", 0);
    }
  }

  void ReadDevices() {
    if (!db_.Has("TARGET_INFO_GPU")) return;
    ColumnSet c(db_, "TARGET_INFO_GPU");
    auto q = db_.Query("SELECT " + c.Select({"id", "name", "totalMemory", "smCount", "threadsPerWarp",
                                             "computeMajor", "computeMinor"}) +
                       " FROM TARGET_INFO_GPU ORDER BY id");
    if (!q.ok()) return;
    while (q->Step()) {
      model::Device d;
      d.id = static_cast<int32_t>(q->Int(0));
      d.name = std::string(q->Text(1));
      d.vendor = model::Vendor::kNvidia;
      d.total_memory = q->Int(2);
      d.compute_units = static_cast<int32_t>(q->Int(3));
      d.warp_size = static_cast<int32_t>(q->Int(4));
      if (!q->IsNull(5)) d.compute_major = static_cast<int32_t>(q->Int(5));
      if (!q->IsNull(6)) d.compute_minor = static_cast<int32_t>(q->Int(6));
      t_.devices.push_back(std::move(d));
    }
  }

  void ReadProcessesAndThreads() {
    if (db_.Has("PROCESSES")) {
      if (auto q = db_.Query("SELECT pid, name FROM PROCESSES"); q.ok()) {
        while (q->Step()) {
          if (!q->IsNull(1)) t_.process_names[q->Int(0)] = t_.strings.Intern(q->Text(1));
        }
      }
    }
    if (db_.Has("ThreadNames")) {
      if (auto q = db_.Query("SELECT globalTid, nameId FROM ThreadNames"); q.ok()) {
        while (q->Step()) thread_names_[q->Int(0)] = q->Int(1);
      }
    }
  }

  int64_t CountCudaProcesses() {
    std::set<int64_t> keys;
    for (auto [table, col] : {std::pair{"CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"},
                              std::pair{"CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"}}) {
      if (!db_.Has(table)) continue;
      auto q = db_.Query(std::string("SELECT DISTINCT ") + col + " >> 24 FROM " + table);
      if (!q.ok()) continue;
      while (q->Step()) keys.insert(q->Int(0));
    }
    return static_cast<int64_t>(keys.size());
  }

  // Correlation ids are unique per process only; with several CUDA processes the process key
  // goes into the high bits so that links never cross processes.
  uint64_t Correlation(int64_t corr, int64_t global) const {
    if (!multi_process_) return static_cast<uint64_t>(corr);
    return (static_cast<uint64_t>(PidOf(global)) << 40) | (static_cast<uint64_t>(corr) & 0xFFFFFFFFFFull);
  }

  model::TrackId CpuTrack(int64_t global_tid) {
    auto it = cpu_tracks_.find(global_tid);
    if (it != cpu_tracks_.end()) return it->second;
    model::TrackId id = t_.InternTrack(model::TrackKind::kCpuThread, std::to_string(PidOf(global_tid)),
                                       std::to_string(TidOf(global_tid)));
    auto name = thread_names_.find(global_tid);
    if (name != thread_names_.end()) t_.tracks[id].name = strings_.Get(name->second);
    cpu_tracks_.emplace(global_tid, id);
    return id;
  }

  model::TrackId GpuTrack(int64_t device, int64_t stream, int64_t global_pid) {
    auto key = std::make_tuple(device, stream, multi_process_ ? ProcessKey(global_pid) : 0);
    auto it = gpu_tracks_.find(key);
    if (it != gpu_tracks_.end()) return it->second;
    std::string tid = std::to_string(stream);
    if (multi_process_) tid += " (pid " + std::to_string(PidOf(global_pid)) + ")";
    model::TrackId id = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(device), tid);
    t_.tracks[id].tid = stream;
    t_.tracks[id].device = static_cast<int32_t>(device);
    gpu_tracks_.emplace(key, id);
    return id;
  }

  base::Status ReadRuntime() {
    if (!Collected("CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA runtime/driver API calls")) return base::Status::Ok();
    ColumnSet c(db_, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!HasRequired(c, "CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"})) {
      return base::Status::Ok();
    }
    auto q = db_.Query("SELECT " + c.Select({"start", "end", "globalTid", "correlationId", "nameId", "eventClass"}) +
                       " FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!q.ok()) return q.status();
    std::unordered_map<int64_t, model::StringId> names;  // nameId -> stripped name
    while (q->Step()) {
      model::ApiRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "CUPTI_ACTIVITY_KIND_RUNTIME");
      row.track = CpuTrack(q->Int(2));
      row.correlation = Correlation(q->Int(3), q->Int(2));
      auto [it, inserted] = names.emplace(q->Int(4), 0);
      if (inserted) it->second = t_.strings.Intern(StripVersionSuffix(strings_.Text(q->Int(4))));
      row.name = it->second;
      std::string_view cls = event_class_.Name(q->Int(5));
      row.domain = cls.find("DRIVER") != std::string_view::npos ? model::ApiDomain::kDriver : model::ApiDomain::kRuntime;
      t_.api.Append(row);
    }
    return Finish(*q);
  }

  // Duration from start/end; a reversed pair is counted and kept as 0.
  int64_t End(int64_t start, int64_t end, std::string_view table) {
    return DurationOrZero(t_, start, end, "nsys.end_before_start", table);
  }

  base::Status ReadKernels() {
    if (!Collected("CUPTI_ACTIVITY_KIND_KERNEL", "GPU kernels")) return base::Status::Ok();
    ColumnSet c(db_, "CUPTI_ACTIVITY_KIND_KERNEL");
    if (!HasRequired(c, "CUPTI_ACTIVITY_KIND_KERNEL", {"start", "end", "correlationId"})) return base::Status::Ok();
    // Mangled names are kept (stats demangles them for display, --mangled shows them raw);
    // the demangled one is the fallback for exports that lack it.
    auto q = db_.Query("SELECT " +
                       c.Select({"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "mangledName",
                                 "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                                 "registersPerThread", "staticSharedMemory", "dynamicSharedMemory"}) +
                       " FROM CUPTI_ACTIVITY_KIND_KERNEL");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      model::KernelRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "CUPTI_ACTIVITY_KIND_KERNEL");
      row.device = static_cast<int16_t>(q->Int(2));
      row.track = GpuTrack(q->Int(2), q->Int(3), q->Int(5));
      row.correlation = Correlation(q->Int(4), q->Int(5));
      int name_col = !q->IsNull(6) ? 6 : !q->IsNull(7) ? 7 : 8;
      if (q->IsNull(name_col)) {
        t_.problems.Add("nsys.kernel_without_name", "a kernel at " + std::to_string(row.start_ns) + " ns has no name");
        row.name = t_.strings.Intern("<unnamed kernel>");
      } else {
        row.name = strings_.Get(q->Int(name_col));
      }
      for (int i = 0; i < 3; ++i) {
        row.grid[i] = static_cast<uint32_t>(q->Int(9 + i));
        row.block[i] = static_cast<uint32_t>(q->Int(12 + i));
      }
      row.registers = static_cast<uint32_t>(q->Int(15));
      row.shared_mem = static_cast<uint32_t>(q->Int(16) + q->Int(17));
      t_.kernels.Append(row);
    }
    return Finish(*q);
  }

  MemoryKind MemKind(const base::SqliteQuery& q, int col) {
    if (q.IsNull(col)) return MemoryKind::kUnknown;
    return model::ParseMemoryKind(mem_kind_.Label(q.Int(col)));
  }

  std::string_view MemKindLabel(const base::SqliteQuery& q, int col) {
    std::string_view l = q.IsNull(col) ? std::string_view() : mem_kind_.Label(q.Int(col));
    return l.empty() ? "Unknown" : l;
  }

  base::Status ReadMemcpy() {
    if (!Collected("CUPTI_ACTIVITY_KIND_MEMCPY", "memory copies")) return base::Status::Ok();
    if (!memcpy_oper_.present || !mem_kind_.present) {
      t_.problems.Add("nsys.missing_enum_table",
                      "ENUM_CUDA_MEMCPY_OPER or ENUM_CUDA_MEM_KIND is missing: copy directions and memory kinds "
                      "are unknown (nsys's numbering is not guessed)");
    }
    ColumnSet c(db_, "CUPTI_ACTIVITY_KIND_MEMCPY");
    if (!HasRequired(c, "CUPTI_ACTIVITY_KIND_MEMCPY", {"start", "end", "correlationId"})) return base::Status::Ok();
    auto q = db_.Query("SELECT " +
                       c.Select({"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                                 "copyKind", "srcKind", "dstKind"}) +
                       " FROM CUPTI_ACTIVITY_KIND_MEMCPY");
    if (!q.ok()) return q.status();
    std::map<std::string, model::StringId> names;
    while (q->Step()) {
      model::MemopRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "CUPTI_ACTIVITY_KIND_MEMCPY");
      row.device = static_cast<int16_t>(q->Int(2));
      row.track = GpuTrack(q->Int(2), q->Int(3), q->Int(5));
      row.correlation = Correlation(q->Int(4), q->Int(5));
      row.bytes = q->IsNull(6) ? -1 : q->Int(6);
      row.kind = q->IsNull(7) ? MemopKind::kOther : CopyDirection(memcpy_oper_.Name(q->Int(7)));
      row.src = MemKind(*q, 8);
      row.dst = MemKind(*q, 9);
      // The PyTorch profiler's spelling, so that names compare across tools.
      std::string name = "Memcpy " + std::string(model::MemopKindName(row.kind)) + " (" +
                         std::string(MemKindLabel(*q, 8)) + " -> " + std::string(MemKindLabel(*q, 9)) + ")";
      auto [it, inserted] = names.emplace(name, 0);
      if (inserted) it->second = t_.strings.Intern(name);
      row.name = it->second;
      t_.memops.Append(row);
    }
    return Finish(*q);
  }

  base::Status ReadMemset() {
    if (!Collected("CUPTI_ACTIVITY_KIND_MEMSET", "memsets")) return base::Status::Ok();
    ColumnSet c(db_, "CUPTI_ACTIVITY_KIND_MEMSET");
    if (!HasRequired(c, "CUPTI_ACTIVITY_KIND_MEMSET", {"start", "end", "correlationId"})) return base::Status::Ok();
    auto q = db_.Query("SELECT " +
                       c.Select({"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                                 "memKind"}) +
                       " FROM CUPTI_ACTIVITY_KIND_MEMSET");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      model::MemopRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "CUPTI_ACTIVITY_KIND_MEMSET");
      row.device = static_cast<int16_t>(q->Int(2));
      row.track = GpuTrack(q->Int(2), q->Int(3), q->Int(5));
      row.correlation = Correlation(q->Int(4), q->Int(5));
      row.bytes = q->IsNull(6) ? -1 : q->Int(6);
      row.kind = MemopKind::kMemset;
      row.dst = MemKind(*q, 7);
      row.name = t_.strings.Intern("Memset (" + std::string(MemKindLabel(*q, 7)) + ")");
      t_.memops.Append(row);
    }
    return Finish(*q);
  }

  base::Status ReadSync() {
    if (!db_.Has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return base::Status::Ok();
    ColumnSet c(db_, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    if (!HasRequired(c, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {"start", "end"})) return base::Status::Ok();
    auto q = db_.Query("SELECT " + c.Select({"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                             "syncType"}) +
                       " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      model::GpuRangeRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
      // Context syncs carry stream 0xFFFFFFFF: they wait for every stream of the device.
      int64_t stream = q->Int(3);
      row.track = stream == 0xFFFFFFFFll ? GpuTrack(q->Int(2), -1, q->Int(5)) : GpuTrack(q->Int(2), stream, q->Int(5));
      row.correlation = Correlation(q->Int(4), q->Int(5));
      std::string_view label = q->IsNull(6) ? std::string_view() : sync_type_.Label(q->Int(6));
      row.name = t_.strings.Intern(label.empty() ? "Synchronization" : label);
      row.kind = model::GpuRangeKind::kSync;
      t_.gpu_ranges.Append(row);
    }
    return Finish(*q);
  }

  base::Status ReadNvtx() {
    if (!Collected("NVTX_EVENTS", "NVTX ranges")) return base::Status::Ok();
    ColumnSet c(db_, "NVTX_EVENTS");
    if (!HasRequired(c, "NVTX_EVENTS", {"start", "eventType"})) return base::Status::Ok();
    auto q = db_.Query("SELECT " + c.Select({"start", "end", "eventType", "globalTid", "textId", "text"}) +
                       " FROM NVTX_EVENTS");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      std::string_view type = event_type_.Name(q->Int(2));
      std::string_view text = !q->IsNull(4) ? strings_.Text(q->Int(4)) : q->Text(5);
      bool range = type == "NvtxPushPopRange" || type == "NvtxStartEndRange" || type == "NvtxtPushPopRange" ||
                   type == "NvtxtStartEndRange";
      bool mark = type == "NvtxMark" || type == "NvtxtMark";
      if (range && !q->IsNull(1)) {
        model::CpuRangeRow row;
        row.start_ns = q->Int(0);
        row.dur_ns = End(q->Int(0), q->Int(1), "NVTX_EVENTS");
        row.track = CpuTrack(q->Int(3));
        std::string_view op = EmitNvtxOpName(text);
        row.kind = op.empty() ? model::CpuRangeKind::kAnnotation : model::CpuRangeKind::kOp;
        row.name = t_.strings.Intern(op.empty() ? text : op);
        t_.cpu.Append(row);
      } else if (mark || (range && q->IsNull(1))) {
        t_.instants.Append(q->Int(0), t_.strings.Intern(text), CpuTrack(q->Int(3)));
      } else {
        ++t_.record_counts["NVTX " + std::string(type.empty() ? "unknown-type" : type) + " records"];
      }
    }
    return Finish(*q);
  }

  base::Status ReadOsRuntime() {
    if (!db_.Has("OSRT_API")) return base::Status::Ok();
    ColumnSet c(db_, "OSRT_API");
    if (!HasRequired(c, "OSRT_API", {"start", "end", "globalTid", "nameId"})) return base::Status::Ok();
    auto q = db_.Query("SELECT start, end, globalTid, nameId FROM OSRT_API");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      model::ApiRow row;
      row.start_ns = q->Int(0);
      row.dur_ns = End(q->Int(0), q->Int(1), "OSRT_API");
      row.track = CpuTrack(q->Int(2));
      row.name = strings_.Get(q->Int(3));
      row.domain = model::ApiDomain::kOs;
      t_.api.Append(row);
    }
    return Finish(*q);
  }

  // Records that are not events of the model but are part of the file: counted so that
  // `info` accounts for them.
  void CountOtherRecords() {
    for (auto [table, label] : {std::pair{"PROFILER_OVERHEAD", "nsys profiler overhead ranges"},
                                std::pair{"CUPTI_ACTIVITY_KIND_OVERHEAD", "CUPTI overhead ranges"},
                                std::pair{"SCHED_EVENTS", "thread scheduling events"},
                                std::pair{"COMPOSITE_EVENTS", "CPU sampling events"},
                                std::pair{"CUDA_GPU_MEMORY_USAGE_EVENTS", "CUDA memory usage events"},
                                std::pair{"GPU_METRICS", "GPU metrics samples"},
                                std::pair{"CUPTI_ACTIVITY_KIND_CUDA_EVENT", "CUDA event records"},
                                std::pair{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA graph launches"}}) {
      if (!db_.Has(table)) continue;
      int64_t n = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0);
      if (n > 0) t_.record_counts[label] = static_cast<uint64_t>(n);
    }
  }

  const SqliteDb& db_;
  Trace& t_;
  StringIdMap strings_;
  EnumTable memcpy_oper_, mem_kind_, event_class_, sync_type_, event_type_;
  std::unordered_map<int64_t, int64_t> thread_names_;  // globalTid -> StringIds id
  std::unordered_map<int64_t, model::TrackId> cpu_tracks_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, model::TrackId> gpu_tracks_;
  bool multi_process_ = false;
};

}  // namespace

bool NsysImporter::Recognizes(const base::FileSniff& sniff) const {
  if (!sniff.sqlite || !sniff.Has("StringIds")) return false;
  return sniff.Has("META_DATA_EXPORT") || sniff.Has("TARGET_INFO_SESSION_START_TIME") ||
         sniff.Has("CUPTI_ACTIVITY_KIND_RUNTIME") || sniff.Has("CUPTI_ACTIVITY_KIND_KERNEL");
}

base::StatusOr<ImportResult> NsysImporter::Read(const std::string& path, const ImportOptions&) const {
  auto db = SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return db.status();
  ImportResult result;
  Trace& trace = result.trace;
  trace.meta.path = path;
  NsysReader reader(*db, &trace);
  base::Status st = reader.Read();
  if (!st.ok()) {
    if (trace.EventCount() == 0) return st;
    trace.meta.import_error = st.message();
  }
  result.empty_reason =
      "the Nsight Systems export holds no events (no CUDA, NVTX or OS runtime rows); was anything traced? "
      "Profile with e.g. nsys profile -t cuda,nvtx,osrt";
  return result;
}

}  // namespace gpuscope::import::nsys
