// CUDA activity: runtime/driver calls, kernels, memcpy, memset and synchronisations.

#include "import/common/allocation_records.h"
#include "import/nsys/nsys_reader.h"

namespace gpuscope::import::nsys {
namespace {

// The columns every CUPTI GPU activity table (kernel, memcpy, memset, synchronization) starts its
// SELECT list with - columns 0-5 of the query, read by ReadGpuOp - then `more`.
std::string SelectGpuOp(const ColumnSet& c, std::initializer_list<std::string_view> more) {
  return c.Select({"start", "end", "deviceId", "streamId", "correlationId", "globalPid"}) + ", " +
         c.Select(more);
}

}  // namespace

template <typename Row>
void NsysReader::ReadGpuOp(const base::SqliteQuery& q, Row* row) {
  row->start_ns = TimeAt(q, 0);
  row->dur_ns = model::DurationBetween(row->start_ns, TimeAt(q, 1));
  row->device = static_cast<int16_t>(q.Int(2));
  row->track = GpuTrack(q.Int(2), q.Int(3), q.Int(5));
  row->correlation = Correlation(q.Int(4), q.Int(5));
}

base::Status NsysReader::ReadRuntime() {
  auto c = OpenTable("CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA runtime/driver API calls",
                     {"start", "end", "globalTid", "correlationId", "nameId"});
  if (!c) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT " +
                c->Select({"start", "end", "globalTid", "correlationId", "nameId", "eventClass"}) +
                " FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
  std::unordered_map<int64_t, model::StringId> names;  // nameId -> stripped name
  while (q.Step()) {
    model::ApiRow row;
    row.start_ns = TimeAt(q, 0);
    row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
    row.track = CpuTrack(q.Int(2));
    row.correlation = Correlation(q.Int(3), q.Int(2));
    auto [it, inserted] = names.emplace(q.Int(4), 0);
    if (inserted) it->second = t_.strings.Intern(StripVersionSuffix(strings_.Text(q.Int(4))));
    row.name = it->second;
    std::string_view cls = event_class_.Name(q.Int(5));
    row.domain = cls.find("DRIVER") != std::string_view::npos ? model::ApiDomain::kDriver
                                                              : model::ApiDomain::kRuntime;
    t_.api.Append(row);
  }
  return Finish(q);
}

base::Status NsysReader::ReadKernels() {
  auto c =
      OpenTable("CUPTI_ACTIVITY_KIND_KERNEL", "GPU kernels", {"start", "end", "correlationId"});
  if (!c) return base::Status::Ok();
  // Mangled names are kept (stats demangles them for display, --mangled shows them raw);
  // the demangled one is the fallback for exports that lack it.
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT " +
                SelectGpuOp(*c, {"mangledName", "demangledName", "shortName", "gridX", "gridY",
                                 "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                                 "staticSharedMemory", "dynamicSharedMemory"}) +
                " FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  while (q.Step()) {
    model::KernelRow row;
    ReadGpuOp(q, &row);
    int name_col = !q.IsNull(6) ? 6 : !q.IsNull(7) ? 7 : 8;
    if (q.IsNull(name_col)) {
      t_.problems.Add(model::ProblemKind::kNsysKernelWithoutName,
                      "a kernel at " + std::to_string(row.start_ns) + " ns has no name");
      row.name = t_.strings.Intern("<unnamed kernel>");
    } else {
      row.name = strings_.Get(q.Int(name_col));
    }
    for (int i = 0; i < 3; ++i) {
      row.grid[i] = static_cast<uint32_t>(q.Int(9 + i));
      row.block[i] = static_cast<uint32_t>(q.Int(12 + i));
    }
    row.registers = static_cast<uint32_t>(q.Int(15));
    row.shared_mem = static_cast<uint32_t>(q.Int(16) + q.Int(17));
    t_.kernels.Append(row);
  }
  return Finish(q);
}

MemoryKind NsysReader::MemKind(const base::SqliteQuery& q, int col) {
  if (q.IsNull(col)) return MemoryKind::kUnknown;
  return model::ParseMemoryKind(mem_kind_.Label(q.Int(col)));
}

std::string_view NsysReader::MemKindLabel(const base::SqliteQuery& q, int col) {
  std::string_view l = q.IsNull(col) ? std::string_view() : mem_kind_.Label(q.Int(col));
  return l.empty() ? "Unknown" : l;
}

base::Status NsysReader::ReadMemcpy() {
  auto c =
      OpenTable("CUPTI_ACTIVITY_KIND_MEMCPY", "memory copies", {"start", "end", "correlationId"});
  if (!c) return base::Status::Ok();
  if (!mem_kind_.present) {
    t_.problems.Add(model::ProblemKind::kNsysMissingEnumTable,
                    "ENUM_CUDA_MEM_KIND is missing: copies' memory kinds (pageable / pinned) are "
                    "unknown (CUPTI and nsys number them differently, so none is guessed)");
  }
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("SELECT " + SelectGpuOp(*c, {"bytes", "copyKind", "srcKind", "dstKind"}) +
                        " FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
  std::map<std::string, model::StringId> names;
  while (q.Step()) {
    model::MemopRow row;
    ReadGpuOp(q, &row);
    row.bytes = q.Integer(6).value_or(-1);
    row.kind = q.IsNull(7) ? MemopKind::kOther : CopyDirection(memcpy_oper_.Name(q.Int(7)));
    row.src = MemKind(q, 8);
    row.dst = MemKind(q, 9);
    // The PyTorch profiler's spelling, so that names compare across tools.
    std::string name = "Memcpy " + std::string(model::MemopKindName(row.kind)) + " (" +
                       std::string(MemKindLabel(q, 8)) + " -> " + std::string(MemKindLabel(q, 9)) +
                       ")";
    auto [it, inserted] = names.emplace(name, 0);
    if (inserted) it->second = t_.strings.Intern(name);
    row.name = it->second;
    t_.memops.Append(row);
  }
  return Finish(q);
}

base::Status NsysReader::ReadMemset() {
  auto c = OpenTable("CUPTI_ACTIVITY_KIND_MEMSET", "memsets", {"start", "end", "correlationId"});
  if (!c) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query("SELECT " + SelectGpuOp(*c, {"bytes", "memKind"}) +
                                              " FROM CUPTI_ACTIVITY_KIND_MEMSET"));
  while (q.Step()) {
    model::MemopRow row;
    ReadGpuOp(q, &row);
    row.bytes = q.Integer(6).value_or(-1);
    row.kind = MemopKind::kMemset;
    row.dst = MemKind(q, 7);
    row.name = t_.strings.Intern("Memset (" + std::string(MemKindLabel(q, 7)) + ")");
    t_.memops.Append(row);
  }
  return Finish(q);
}

base::StatusOr<EventRecords> NsysReader::ReadEventRecords() {
  EventRecords out;
  auto c =
      OpenTable("CUPTI_ACTIVITY_KIND_CUDA_EVENT", {}, {"streamId", "correlationId", "eventId"});
  if (!c) return out;
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT " +
                c->Select({"streamId", "correlationId", "eventId", "globalPid", "eventSyncId"}) +
                " FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT"));
  while (q.Step()) {
    if (q.IsNull(0) || q.IsNull(1) || q.IsNull(2)) continue;
    out.Add({q.IsNull(3) ? 0 : q.Int(3), q.Int(2), q.Int(1), q.Int(0)},
            q.IsNull(4) ? -1 : q.Int(4));
  }
  GPUSCOPE_RETURN_IF_ERROR(Finish(q));
  return out;
}

base::Status NsysReader::ReadSync() {
  auto c = OpenTable("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {}, {"start", "end"});
  if (!c) return base::Status::Ok();
  // A stream wait names the event record it waited for: the replay's recorded cross-stream edge
  // (as Kineto's "Stream Wait Event" gives it).
  GPUSCOPE_ASSIGN_OR_RETURN(EventRecords records, ReadEventRecords());
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("SELECT " + SelectGpuOp(*c, {"syncType", "eventId", "eventSyncId"}) +
                        " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
  while (q.Step()) {
    model::GpuRangeRow row;
    row.start_ns = TimeAt(q, 0);
    row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
    // Context syncs carry stream 0xFFFFFFFF: they wait for every stream of the device.
    int64_t stream = q.Int(3);
    row.track = stream == 0xFFFFFFFFll ? GpuTrack(q.Int(2), -1, q.Int(5))
                                       : GpuTrack(q.Int(2), stream, q.Int(5));
    row.correlation = Correlation(q.Int(4), q.Int(5));
    std::string_view label = q.IsNull(6) ? std::string_view() : sync_type_.Label(q.Int(6));
    row.name = t_.strings.Intern(label.empty() ? "Synchronization" : label);
    row.kind = model::GpuRangeKind::kSync;
    const bool stream_wait =
        !q.IsNull(6) && sync_type_.Name(q.Int(6)).ends_with("_STREAM_WAIT_EVENT");
    if (stream_wait && !records.empty() && !q.IsNull(4) && !q.IsNull(7)) {
      const EventRecord* r =
          records.Find(q.IsNull(5) ? 0 : q.Int(5), q.IsNull(8) ? -1 : q.Int(8), q.Int(7), q.Int(4));
      if (r) {
        row.waits_on_record = Correlation(r->correlation, r->global_pid);
        row.waits_on_stream = r->stream;
      }
    }
    t_.gpu_ranges.Append(row);
  }
  return Finish(q);
}

// `--cuda-memory-usage`: CUDA's device allocations and frees as GPU memory events
// (AllocationRecords: a free sized by the block at its address), on the thread of the runtime
// call of the same correlation id. Kinds and operations by their enum tables' names, never by
// number; pinned, managed and static memory are counted, not the device's allocations.
base::Status NsysReader::ReadMemoryUsage() {
  constexpr std::string_view kTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
  auto c = OpenTable(kTable, {}, {"start", "bytes", "memKind", "memoryOperationType"});
  if (!c) return base::Status::Ok();
  EnumTable oper = LoadEnum(db_, "ENUM_CUDA_DEV_MEM_EVENT_OPER");
  if (!oper.present || !mem_kind_.present) {
    ++t_.record_counts["GPU memory usage events (no enum tables to read them by)"];
    return base::Status::Ok();
  }
  const auto thread_of = ApiThreadsByCorrelation(t_);
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("SELECT " +
                        c->Select({"start", "deviceId", "address", "bytes", "memKind",
                                   "memoryOperationType", "globalPid", "correlationId"}) +
                        " FROM " + std::string(kTable) + " ORDER BY start"));
  AllocationRecords records(&t_);
  while (q.Step()) {
    if (mem_kind_.Name(q.Int(4)) != "CUDA_MEMOPR_MEMORY_KIND_DEVICE") {
      records.NotModelled("memory usage events of pinned, managed or static memory (not modelled)");
      continue;
    }
    auto it = q.IsNull(7) ? thread_of.end() : thread_of.find(Correlation(q.Int(7), q.Int(6)));
    model::TrackId track = it != thread_of.end() ? it->second
                                                 : t_.InternTrack(model::TrackKind::kCpuThread,
                                                                  std::to_string(PidOf(q.Int(6))),
                                                                  "allocations (no runtime call)");
    std::string_view op = oper.Name(q.Int(5));
    auto addr = static_cast<uint64_t>(q.Int(2));
    if (op == "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION") {
      records.Allocate(TimeAt(q, 0), track, static_cast<int>(q.Int(1)), addr, q.Int(3));
    } else if (op == "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION") {
      records.Free(TimeAt(q, 0), track, addr);
    } else {
      records.NotModelled("memory usage events of other operations (not modelled)");
    }
  }
  return Finish(q);
}

}  // namespace gpuscope::import::nsys
