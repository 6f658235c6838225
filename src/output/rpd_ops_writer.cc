// The GPU ops (kernels, copies, fills with their launch rows), GPU-side ranges and monitor samples.

#include "output/rpd_writer_parts.h"

namespace gpuscope::output::rpd_internal {

using base::SqliteDb;
using base::SqliteQuery;
using model::Trace;

base::Status RpdWriter::WriteOps() {
  auto op = db_.Query(
      "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, completionSignal, start, end, "
      "description_id, opType_id) VALUES (?1, ?2, ?3, 0, '', ?4, ?5, ?6, ?7)");
  auto link = db_.Query("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?1, ?2)");
  auto kapi = db_.Query(
      "INSERT INTO rocpd_kernelapi(api_ptr_id, stream, gridX, gridY, gridZ, workgroupX, "
      "workgroupY, "
      "workgroupZ, groupSegmentSize, privateSegmentSize, kernelArgAddress, aquireFence, "
      "releaseFence, codeObject_id, kernelName_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, "
      "'', '', '', 0, ?10)");
  auto capi = db_.Query(
      "INSERT INTO rocpd_copyapi(api_ptr_id, stream, size, width, height, kind, dst, src, "
      "dstDevice, srcDevice, sync, pinned) VALUES (?1, ?2, ?3, '', '', ?4, '', '', ?5, ?6, ?7, "
      "?8)");
  auto ext = db_.Query(Insert(rpd_ext::kOpTable, rpd_ext::kOpColumns));
  auto ext_kernel = db_.Query(Insert(rpd_ext::kKernelTable, rpd_ext::kKernelColumns));
  for (auto* q : {&op, &link, &kapi, &capi, &ext, &ext_kernel}) {
    if (!q->ok()) return q->status();
  }
  // Launch calls with exactly one kernel get its launch parameters (rpd's kernel view joins
  // them to every op of the call, so a graph launch's kernels keep rpd's "Task" form: none).
  std::vector<uint8_t> kernels_per_call(t_.api.size(), 0);
  for (model::RowId l : t_.kernels.launch) {
    if (l != model::kNoRow && l < kernels_per_call.size() && kernels_per_call[l] < 2)
      ++kernels_per_call[l];
  }
  std::vector<bool> copy_written(t_.api.size(), false);
  GPUSCOPE_ASSIGN_OR_RETURN(auto kernel_type, strings_->Of(std::string_view("KernelExecution")));
  int64_t op_id = 0;
  auto insert_op = [&](model::TrackId track, int16_t device, int64_t start, int64_t dur,
                       int64_t desc, int64_t type) -> base::Status {
    op->Bind(1, ++op_id);
    op->Bind(2, device >= 0 ? device : GpuId(track));
    op->Bind(3, layout_.tracks[track].tid);
    op->Bind(4, start);
    op->Bind(5, start + dur);
    op->Bind(6, desc);
    op->Bind(7, type);
    ++counts_.ops;
    return op->Run();
  };
  auto insert_link = [&](model::RowId launch) -> base::Status {
    if (launch == model::kNoRow || launch >= t_.api.size()) return base::Status::Ok();
    link->Bind(1, static_cast<int64_t>(launch) + 1);
    link->Bind(2, op_id);
    return link->Run();
  };
  const auto& k = t_.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(k.name[i]));
    GPUSCOPE_RETURN_IF_ERROR(
        insert_op(k.track[i], k.device[i], k.start_ns[i], k.dur_ns[i], name, kernel_type));
    GPUSCOPE_RETURN_IF_ERROR(insert_link(k.launch[i]));
    model::RowId l = k.launch[i];
    if (l != model::kNoRow && l < kernels_per_call.size() && kernels_per_call[l] == 1) {
      kapi->Bind(1, static_cast<int64_t>(l) + 1);
      kapi->Bind(2, std::to_string(layout_.tracks[k.track[i]].tid));
      for (int d = 0; d < 3; ++d) {
        kapi->Bind(3 + d, static_cast<int64_t>(k.grid[i][d]));
        kapi->Bind(6 + d, static_cast<int64_t>(k.block[i][d]));
      }
      kapi->Bind(9, static_cast<int64_t>(k.shared_mem[i]));
      kapi->Bind(10, name);
      GPUSCOPE_RETURN_IF_ERROR(kapi->Run());
    } else if (k.grid[i] != model::Dim3{0, 0, 0} || k.block[i] != model::Dim3{0, 0, 0}) {
      // Graph kernels and kernels without a launch call: their dimensions per op.
      ext_kernel->Bind(1, op_id);
      for (int d = 0; d < 3; ++d) {
        ext_kernel->Bind(2 + d, static_cast<int64_t>(k.grid[i][d]));
        ext_kernel->Bind(5 + d, static_cast<int64_t>(k.block[i][d]));
      }
      ext_kernel->Bind(8, static_cast<int64_t>(k.shared_mem[i]));
      GPUSCOPE_RETURN_IF_ERROR(ext_kernel->Run());
    }
  }
  const auto& m = t_.memops;
  for (size_t i = 0; i < m.size(); ++i) {
    GPUSCOPE_ASSIGN_OR_RETURN(int64_t name, strings_->Of(m.name[i]));
    GPUSCOPE_ASSIGN_OR_RETURN(int64_t type, strings_->Of(OpType(m.kind[i])));
    GPUSCOPE_RETURN_IF_ERROR(
        insert_op(m.track[i], m.device[i], m.start_ns[i], m.dur_ns[i], name, type));
    GPUSCOPE_RETURN_IF_ERROR(insert_link(m.launch[i]));
    ext->Bind(1, op_id);
    ext->Bind(2, model::MemopKindName(m.kind[i]));
    ext->Bind(3, model::MemoryKindTitle(m.src[i]));
    ext->Bind(4, model::MemoryKindTitle(m.dst[i]));
    ext->BindIf(5, m.bytes[i] >= 0, m.bytes[i]);
    GPUSCOPE_RETURN_IF_ERROR(ext->Run());
    model::RowId l = m.launch[i];
    if (l != model::kNoRow && l < copy_written.size() && !copy_written[l]) {
      copy_written[l] = true;
      capi->Bind(1, static_cast<int64_t>(l) + 1);
      capi->Bind(2, std::to_string(layout_.tracks[m.track[i]].tid));
      // rpd_tracer writes '' for a size it does not know.
      if (m.bytes[i] >= 0)
        capi->Bind(3, m.bytes[i]);
      else
        capi->Bind(3, std::string_view());
      capi->Bind(4, HipMemcpyKind(m.kind[i]));
      capi->Bind(5, static_cast<int64_t>(m.device[i]));
      capi->Bind(6, static_cast<int64_t>(m.device[i]));
      std::string_view call = t_.str(t_.api.name[l]);
      capi->Bind(7, static_cast<int64_t>(call.find("Async") == std::string_view::npos));
      capi->Bind(8, static_cast<int64_t>(m.src[i] == model::MemoryKind::kPinned ||
                                         m.dst[i] == model::MemoryKind::kPinned));
      GPUSCOPE_RETURN_IF_ERROR(capi->Run());
    }
  }
  return base::Status::Ok();
}

base::Status RpdWriter::WriteMemoryEvents() {
  const auto& m = t_.memory;
  if (m.size() == 0) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query(Insert(rpd_ext::kMemoryTable, std::string(rpd_ext::kMemoryColumns))));
  for (size_t i = 0; i < m.size(); ++i) {
    const auto& track = layout_.tracks[m.track[i]];
    q.Bind(1, track.pid);
    q.Bind(2, track.tid);
    q.Bind(3, m.ts_ns[i]);
    q.Bind(4, static_cast<int64_t>(m.device[i]));
    q.Bind(5, m.bytes[i]);
    q.BindIf(6, m.allocated[i] >= 0, m.allocated[i]);
    q.BindIf(7, m.reserved[i] >= 0, m.reserved[i]);
    q.BindIf(8, m.addr[i] != 0, static_cast<int64_t>(m.addr[i]));
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  return base::Status::Ok();
}

base::Status RpdWriter::WriteGpuRanges() {
  const auto& g = t_.gpu_ranges;
  if (g.size() == 0) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query(Insert(rpd_ext::kGpuRangeTable, std::string(rpd_ext::kGpuRangeColumns) + ", " +
                                                    std::string(rpd_ext::kGpuRangeWaitColumns))));
  // A reader takes a call's rocpd_api id for its correlation: a range's calls (the stream-wait
  // call, the event-record call it waits on) are written as those ids.
  std::unordered_map<uint64_t, int64_t> api_id;
  for (size_t i = 0; i < t_.api.size(); ++i) {
    if (t_.api.correlation[i] != model::kNoCorrelation)
      api_id.emplace(t_.api.correlation[i], static_cast<int64_t>(i) + 1);
  }
  auto call = [&](uint64_t corr) {
    auto it = api_id.find(corr);
    return it == api_id.end() ? static_cast<int64_t>(corr) : it->second;
  };
  // The gpuId the ops of the range's stream were written with (their rows' device), so that a
  // reader puts the range on the same stream.
  std::unordered_map<model::TrackId, int64_t> gpu_of;
  for (size_t i = 0; i < t_.kernels.size(); ++i)
    if (t_.kernels.device[i] >= 0) gpu_of.emplace(t_.kernels.track[i], t_.kernels.device[i]);
  for (size_t i = 0; i < t_.memops.size(); ++i)
    if (t_.memops.device[i] >= 0) gpu_of.emplace(t_.memops.track[i], t_.memops.device[i]);
  for (size_t i = 0; i < g.size(); ++i) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(g.name[i]));
    auto gpu = gpu_of.find(g.track[i]);
    q.Bind(1, gpu != gpu_of.end() ? gpu->second : GpuId(g.track[i]));
    q.Bind(2, layout_.tracks[g.track[i]].tid);
    q.Bind(3, g.start_ns[i]);
    q.Bind(4, g.end_ns(i));
    q.Bind(5, base::NameOf(rpd_ext::kGpuRangeKinds, g.kind[i], "other"));
    q.Bind(6, name);
    q.BindIf(7, g.correlation[i] != model::kNoCorrelation, call(g.correlation[i]));
    if (g.waits_on_record[i] != model::kNoCorrelation) {
      q.Bind(8, call(g.waits_on_record[i]));
      q.Bind(9, g.waits_on_stream[i]);
    } else {
      q.BindNull(8);
      q.BindNull(9);
    }
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.gpu_ranges;
  }
  return base::Status::Ok();
}

base::Status RpdWriter::WriteMonitor() {
  const auto& c = t_.counters;
  if (c.size() == 0) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, end, value) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  std::vector<size_t> next(c.size(), SIZE_MAX);
  std::unordered_map<uint64_t, size_t> last;  // (name, track) -> latest sample
  for (size_t i = c.size(); i-- > 0;) {
    uint64_t key = (static_cast<uint64_t>(c.name[i]) << 32) | c.track[i];
    auto it = last.find(key);
    if (it != last.end()) next[i] = it->second;
    last[key] = i;
  }
  for (size_t i = 0; i < c.size(); ++i) {
    // "gpu0 sclk" (how gpuscope names rpd monitor series) splits back into its fields.
    std::string_view series = t_.str(c.name[i]);
    std::string_view type = "counter", monitor = series;
    int64_t device = 0;
    auto sp = series.find(' ');
    if (sp != std::string_view::npos) {
      std::string_view head = series.substr(0, sp);
      size_t digits = head.find_first_of("0123456789");
      if (digits != std::string_view::npos && digits > 0 &&
          head.find_first_not_of("0123456789", digits) == std::string_view::npos) {
        type = head.substr(0, digits);
        device = std::stoll(std::string(head.substr(digits)));
        monitor = series.substr(sp + 1);
      }
    }
    q.Bind(1, type);
    q.Bind(2, device);
    q.Bind(3, monitor);
    q.Bind(4, c.ts_ns[i]);
    q.Bind(5, next[i] == SIZE_MAX ? c.ts_ns[i] : c.ts_ns[next[i]]);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", c.value[i]);
    q.Bind(6, std::string_view(buf));
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.monitor;
  }
  return base::Status::Ok();
}

}  // namespace gpuscope::output::rpd_internal
