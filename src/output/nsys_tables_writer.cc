// The event tables of the Nsight Systems export: runtime, driver and OS calls, kernels, copies,
// fills, sync records, NVTX ranges and marks, with the devices, processes and threads.

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

#include "output/nsys_writer_parts.h"

namespace gpuscope::output::nsys_internal {
namespace {

using model::MemopKind;
using model::MemoryKind;
using profiler_db::BindCorrelation;

int64_t CopyOper(MemopKind k) {
  switch (k) {
    case MemopKind::kHtoD:
      return 1;
    case MemopKind::kDtoH:
      return 2;
    case MemopKind::kDtoD:
      return 8;
    case MemopKind::kHtoH:
      return 9;
    case MemopKind::kPtoP:
      return 10;
    default:
      return 0;
  }
}

int64_t MemKind(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable:
      return 0;
    case MemoryKind::kPinned:
      return 1;
    case MemoryKind::kDevice:
      return 2;
    case MemoryKind::kArray:
      return 3;
    case MemoryKind::kManaged:
      return 4;
    case MemoryKind::kDeviceStatic:
      return 5;
    case MemoryKind::kManagedStatic:
      return 6;
    default:
      return 7;  // unknown; host memory has no kind of its own in nsys
  }
}

// A sync record's kind from its name (Kineto: "Event Sync", "Stream Wait Event", ...).
int64_t SyncType(std::string_view name) {
  auto has = [&](std::string_view w) {
    auto it = std::search(name.begin(), name.end(), w.begin(), w.end(),
                          [](char a, char b) { return std::tolower(a) == b; });
    return it != name.end();
  };
  if (has("wait")) return 2;
  if (has("event")) return 1;
  if (has("context") || has("device")) return 4;
  if (has("stream")) return 3;
  return 0;
}

}  // namespace

base::Status NsysWriter::WriteDevices() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("INSERT INTO TARGET_INFO_GPU(vmId, id, name, totalMemory, smCount, "
                        "threadsPerWarp, computeMajor, computeMinor, cuDevice) VALUES (0, ?1, ?2, "
                        "?3, ?4, ?5, ?6, ?7, ?1)"));
  for (const model::Device& d : t_.devices) {
    q.Bind(1, int64_t{d.id});
    q.Bind(2, d.name);
    q.Bind(3, d.total_memory);
    q.Bind(4, int64_t{d.compute_units});
    q.Bind(5, int64_t{d.warp_size});
    q.BindIf(6, d.compute_major >= 0, d.compute_major);
    q.BindIf(7, d.compute_minor >= 0, d.compute_minor);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  return base::Status::Ok();
}

base::Status NsysWriter::WriteProcesses() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto proc, db_.Query("INSERT INTO PROCESSES(globalPid, pid, name) VALUES (?1, ?2, ?3)"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto thread,
      db_.Query("INSERT INTO ThreadNames(nameId, priority, globalTid) VALUES (?1, 0, ?2)"));
  std::map<int64_t, std::string_view> processes;  // globalPid -> name
  for (size_t i = 0; i < t_.tracks.size(); ++i) {
    const model::Track& tr = t_.tracks[i];
    if (tr.kind != model::TrackKind::kCpuThread) continue;
    int64_t global_pid = (global_tid_[i] >> kIdBits) << kIdBits;
    auto name = processes.emplace(global_pid, std::string_view()).first;
    auto source = t_.process_names.find(tr.pid);
    if (source != t_.process_names.end()) name->second = t_.str(source->second);
    if (t_.str(tr.name).empty()) continue;
    GPUSCOPE_ASSIGN_OR_RETURN(auto id, strings_->Of(tr.name));
    thread.Bind(1, id);
    thread.Bind(2, global_tid_[i]);
    GPUSCOPE_RETURN_IF_ERROR(thread.Run());
  }
  for (auto [global_pid, name] : processes) {
    proc.Bind(1, global_pid);
    proc.Bind(2, global_pid >> kIdBits);
    if (name.empty())
      proc.BindNull(3);
    else
      proc.Bind(3, name);
    GPUSCOPE_RETURN_IF_ERROR(proc.Run());
  }
  return base::Status::Ok();
}

base::Status NsysWriter::WriteApi() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto cuda, SqliteBatchInsert::Create(db_, "CUPTI_ACTIVITY_KIND_RUNTIME",
                                           "start, end, eventClass, globalTid, correlationId, "
                                           "nameId, returnValue"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto os, SqliteBatchInsert::Create(db_, "OSRT_API",
                                         "start, end, eventClass, globalTid, correlationId, "
                                         "nameId, returnValue"));
  const auto& a = t_.api;
  for (size_t i = 0; i < a.size(); ++i) {
    bool osrt = a.domain[i] == model::ApiDomain::kOs;
    SqliteBatchInsert& q = osrt ? os : cuda;
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(a.name[i]));
    q.Bind(1, a.start_ns[i]);
    q.Bind(2, a.start_ns[i] + a.dur_ns[i]);
    q.Bind(3, osrt                                       ? kOsRuntimeClass
              : a.domain[i] == model::ApiDomain::kDriver ? kDriverClass
                                                         : kRuntimeClass);
    q.Bind(4, GlobalTid(a.track[i]));
    BindCorrelation(q, 5, a.correlation[i]);
    q.Bind(6, name);
    q.Bind(7, int64_t{0});
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.api;
  }
  GPUSCOPE_RETURN_IF_ERROR(cuda.Flush());
  return os.Flush();
}

base::Status NsysWriter::WriteKernels() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(
                  db_, "CUPTI_ACTIVITY_KIND_KERNEL",
                  "start, end, deviceId, contextId, streamId, correlationId, globalPid, "
                  "demangledName, shortName, mangledName, registersPerThread, gridX, gridY, "
                  "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
                  "localMemoryPerThread, localMemoryTotal, gridId"));
  const auto& k = t_.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(k.name[i]));
    auto [device, stream] = GpuIds(k.track[i]);
    q.Bind(1, k.start_ns[i]);
    q.Bind(2, k.start_ns[i] + k.dur_ns[i]);
    q.Bind(3, device);
    q.Bind(4, int64_t{1});
    q.Bind(5, stream);
    BindCorrelation(q, 6, k.correlation[i]);
    q.Bind(7, GlobalPid(k.launch[i]));
    q.Bind(8, name);
    q.Bind(9, name);
    // A symbol as the compiler spells it is the mangled name; others are demangled already.
    if (t_.str(k.name[i]).starts_with("_Z"))
      q.Bind(10, name);
    else
      q.BindNull(10);
    q.Bind(11, int64_t{k.registers[i]});
    for (int d = 0; d < 3; ++d) {
      q.Bind(12 + d, int64_t{k.grid[i][d]});
      q.Bind(15 + d, int64_t{k.block[i][d]});
    }
    q.Bind(18, int64_t{k.shared_mem[i]});
    for (int c = 19; c <= 22; ++c) q.Bind(c, int64_t{0});
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.gpu_ops;
  }
  return q.Flush();
}

base::Status NsysWriter::WriteCopies() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto copy, SqliteBatchInsert::Create(db_, "CUPTI_ACTIVITY_KIND_MEMCPY",
                                           "start, end, deviceId, contextId, streamId, "
                                           "correlationId, globalPid, bytes, copyKind, srcKind, "
                                           "dstKind"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto fill, SqliteBatchInsert::Create(db_, "CUPTI_ACTIVITY_KIND_MEMSET",
                                           "start, end, deviceId, contextId, streamId, "
                                           "correlationId, globalPid, bytes, value, memKind"));
  const auto& m = t_.memops;
  for (size_t i = 0; i < m.size(); ++i) {
    bool memset = m.kind[i] == MemopKind::kMemset;
    SqliteBatchInsert& q = memset ? fill : copy;
    auto [device, stream] = GpuIds(m.track[i]);
    q.Bind(1, m.start_ns[i]);
    q.Bind(2, m.start_ns[i] + m.dur_ns[i]);
    q.Bind(3, m.device[i] >= 0 ? int64_t{m.device[i]} : device);
    q.Bind(4, int64_t{1});
    q.Bind(5, stream);
    BindCorrelation(q, 6, m.correlation[i]);
    q.Bind(7, GlobalPid(m.launch[i]));
    q.Bind(8, std::max<int64_t>(m.bytes[i], 0));
    if (memset) {
      q.Bind(9, int64_t{0});
      q.Bind(10, MemKind(m.dst[i]));
    } else {
      q.Bind(9, CopyOper(m.kind[i]));
      q.Bind(10, MemKind(m.src[i]));
      q.Bind(11, MemKind(m.dst[i]));
    }
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.gpu_ops;
  }
  GPUSCOPE_RETURN_IF_ERROR(copy.Flush());
  return fill.Flush();
}

// Syncs; a recorded stream wait also as the CUDA event record it waited for (a
// CUPTI_ACTIVITY_KIND_CUDA_EVENT row on the recording stream, with the record call's correlation),
// the two linked by an eventSyncId as CUPTI links them.
base::Status NsysWriter::WriteSyncs() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(db_, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                        "start, end, deviceId, contextId, streamId, "
                                        "correlationId, globalPid, syncType, eventId, "
                                        "eventSyncId"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto records, SqliteBatchInsert::Create(db_, "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                                              "timestamp, deviceId, contextId, streamId, "
                                              "correlationId, globalPid, eventId, eventSyncId"));
  const auto& g = t_.gpu_ranges;
  int64_t sync_id = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.kind[i] != model::GpuRangeKind::kSync) continue;
    auto [device, stream] = GpuIds(g.track[i]);
    const bool wait = g.waits_on_record[i] != model::kNoCorrelation && g.waits_on_stream[i] >= 0;
    q.Bind(1, g.start_ns[i]);
    q.Bind(2, g.start_ns[i] + g.dur_ns[i]);
    q.Bind(3, device);
    q.Bind(4, int64_t{1});
    q.Bind(5, stream);
    BindCorrelation(q, 6, g.correlation[i]);
    q.Bind(7, main_global_pid_);
    q.Bind(8, wait ? int64_t{2} : SyncType(t_.str(g.name[i])));
    if (wait) {
      ++sync_id;
      q.Bind(9, sync_id), q.Bind(10, sync_id);
      records.Bind(1, int64_t{0});  // no device-side timestamp collected
      records.Bind(2, device);
      records.Bind(3, int64_t{1});
      records.Bind(4, g.waits_on_stream[i]);
      BindCorrelation(records, 5, g.waits_on_record[i]);
      records.Bind(6, main_global_pid_);
      records.Bind(7, sync_id), records.Bind(8, sync_id);
      GPUSCOPE_RETURN_IF_ERROR(records.Run());
    } else {
      q.Bind(9, int64_t{0});
    }
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  GPUSCOPE_RETURN_IF_ERROR(records.Flush());
  return q.Flush();
}

// Ops in emit_nvtx's text (one text per op: written inline), annotations and marks by StringIds.
base::Status NsysWriter::WriteNvtx() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(db_, "NVTX_EVENTS",
                                        "start, end, eventType, text, globalTid, textId, "
                                        "domainId"));
  const auto& c = t_.cpu;
  for (size_t i = 0; i < c.size(); ++i) {
    q.Bind(1, c.start_ns[i]);
    q.Bind(2, c.start_ns[i] + c.dur_ns[i]);
    q.Bind(3, kNvtxPushPopRange);
    if (c.kind[i] == model::CpuRangeKind::kOp) {
      q.Bind(4, profiler_db::OpRangeText(t_, i));
      q.BindNull(6);
    } else {
      GPUSCOPE_ASSIGN_OR_RETURN(auto text, strings_->Of(c.name[i]));
      q.BindNull(4);
      q.Bind(6, text);
    }
    q.Bind(5, GlobalTid(c.track[i]));
    q.Bind(7, int64_t{0});
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.host_ranges;
  }
  const auto& m = t_.instants;
  uint64_t gpu_marks = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (t_.tracks[m.track[i]].kind != model::TrackKind::kCpuThread) {
      ++gpu_marks;  // NVTX marks are the host's
      continue;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto text, strings_->Of(m.name[i]));
    q.Bind(1, m.ts_ns[i]);
    q.BindNull(2);
    q.Bind(3, kNvtxMark);
    q.BindNull(4);
    q.Bind(5, GlobalTid(m.track[i]));
    q.Bind(6, text);
    q.Bind(7, int64_t{0});
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.host_ranges;
  }
  profiler_db::Dropped(counts_, "instants on GPU tracks", gpu_marks);
  return q.Flush();
}

}  // namespace gpuscope::output::nsys_internal
