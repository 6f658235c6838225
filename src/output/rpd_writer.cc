#include "output/rpd_writer.h"

#include "format/rpd_ext.h"

#include <algorithm>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/sqlite_db.h"
#include "output/rpd_v2_schema.h"
#include "output/track_layout.h"

namespace gpuscope::output {
namespace {

using base::SqliteDb;
using base::SqliteQuery;
using model::Trace;
namespace rpd_ext = format::rpd_ext;

// "INSERT INTO <table>(<columns>) VALUES (?1, ..., ?n)" for a gpuscope extension table.
std::string Insert(std::string_view table, std::string_view columns) {
  std::string q = "INSERT INTO " + std::string(table) + "(" + std::string(columns) + ") VALUES (";
  int n = 1 + static_cast<int>(std::count(columns.begin(), columns.end(), ','));
  for (int i = 1; i <= n; ++i) q += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return q + ")";
}


// rocpd_string ids, one per distinct text.
class StringIds {
 public:
  StringIds(const Trace& t, SqliteQuery insert) : t_(t), insert_(std::move(insert)), by_pool_id_(t.strings.size(), 0) {}

  base::StatusOr<int64_t> Of(model::StringId id) {
    if (id < by_pool_id_.size() && by_pool_id_[id] != 0) return by_pool_id_[id];
    auto v = Of(t_.str(id));
    if (v.ok() && id < by_pool_id_.size()) by_pool_id_[id] = *v;
    return v;
  }
  base::StatusOr<int64_t> Of(std::string_view text) {
    auto it = by_text_.find(std::string(text));
    if (it != by_text_.end()) return it->second;
    int64_t id = static_cast<int64_t>(by_text_.size()) + 1;
    insert_.Bind(1, id);
    insert_.Bind(2, text);
    GPUSCOPE_RETURN_IF_ERROR(insert_.Run());
    by_text_.emplace(std::string(text), id);
    return id;
  }

 private:
  const Trace& t_;
  SqliteQuery insert_;
  std::vector<int64_t> by_pool_id_;
  std::unordered_map<std::string, int64_t> by_text_;
};

std::string_view OpType(model::MemopKind k) {
  switch (k) {
    case model::MemopKind::kHtoD: return "CopyHostToDevice";
    case model::MemopKind::kDtoH: return "CopyDeviceToHost";
    case model::MemopKind::kDtoD: return "CopyDeviceToDevice";
    case model::MemopKind::kHtoH: return "CopyHostToHost";
    case model::MemopKind::kPtoP: return "CopyPeerToPeer";
    case model::MemopKind::kMemset: return "FillBuffer";
    case model::MemopKind::kOther: return "Copy";
  }
  return "Copy";
}

// hipMemcpyKind as rpd_tracer stores it in rocpd_copyapi.kind.
int64_t HipMemcpyKind(model::MemopKind k) {
  switch (k) {
    case model::MemopKind::kHtoH: return 0;
    case model::MemopKind::kHtoD: return 1;
    case model::MemopKind::kDtoH: return 2;
    case model::MemopKind::kDtoD:
    case model::MemopKind::kPtoP: return 3;
    default: return 4;
  }
}

class RpdWriter {
 public:
  RpdWriter(const Trace& t, SqliteDb& db) : t_(t), db_(db), layout_(LayoutTracks(t)) {}

  base::StatusOr<RpdWriteCounts> Write() {
    GPUSCOPE_RETURN_IF_ERROR(db_.Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"));
    GPUSCOPE_RETURN_IF_ERROR(db_.Exec(kRpdV2Schema));
    GPUSCOPE_RETURN_IF_ERROR(db_.Exec(format::rpd_ext::kSchema));
    auto ins_string = db_.Query("INSERT INTO rocpd_string(id, string) VALUES (?1, ?2)");
    if (!ins_string.ok()) return ins_string.status();
    strings_.emplace(t_, std::move(*ins_string));
    GPUSCOPE_RETURN_IF_ERROR(WriteMetadata());
    GPUSCOPE_RETURN_IF_ERROR(WriteApi());
    GPUSCOPE_RETURN_IF_ERROR(WriteOps());
    GPUSCOPE_RETURN_IF_ERROR(WriteMarkers());
    GPUSCOPE_RETURN_IF_ERROR(WriteMonitor());
    GPUSCOPE_RETURN_IF_ERROR(WriteGpuRanges());
    GPUSCOPE_RETURN_IF_ERROR(db_.Exec("COMMIT;"));
    return counts_;
  }

 private:
  base::Status WriteMetadata() {
    auto q = db_.Query("INSERT INTO rocpd_metadata(tag, value) VALUES (?1, ?2)");
    if (!q.ok()) return q.status();
    for (auto [tag, value] : {std::pair<std::string_view, std::string_view>{"schema_version", "2"},
                              {"session_count", "1"},
                              {rpd_ext::kTagSource, t_.meta.path},
                              {rpd_ext::kTagSourceFormat, t_.meta.format},
                              {rpd_ext::kTagClock, t_.meta.clock}}) {
      q->Bind(1, tag);
      q->Bind(2, value);
      GPUSCOPE_RETURN_IF_ERROR(q->Run());
    }
    // Names rpd v2 has no table for, as gpuscope:: tags (the rpd importer reads them back).
    auto tag = [&](const std::string& k, std::string_view v) {
      q->Bind(1, k);
      q->Bind(2, v);
      return q->Run();
    };
    for (const model::Device& d : t_.devices) {
      GPUSCOPE_RETURN_IF_ERROR(tag(std::string(rpd_ext::kTagDeviceName) + std::to_string(d.id), d.name));
      GPUSCOPE_RETURN_IF_ERROR(tag(std::string(rpd_ext::kTagDeviceVendor) + std::to_string(d.id), model::VendorName(d.vendor)));
    }
    for (const auto& [pid, name] : t_.process_names) {
      GPUSCOPE_RETURN_IF_ERROR(tag(std::string(rpd_ext::kTagProcessName) + std::to_string(pid), t_.str(name)));
    }
    for (size_t i = 0; i < t_.tracks.size(); ++i) {
      const model::Track& tr = t_.tracks[i];
      if (tr.kind != model::TrackKind::kCpuThread || t_.str(tr.name).empty()) continue;
      const TrackView& v = layout_.tracks[i];
      GPUSCOPE_RETURN_IF_ERROR(
          tag(std::string(rpd_ext::kTagThreadName) + std::to_string(v.pid) + "/" + std::to_string(v.tid), t_.str(tr.name)));
    }
    // The kernel-code-object row every rocpd_kernelapi row points at (rpd requires one).
    return db_.Exec("INSERT INTO rocpd_kernelcodeobject(id, vgpr, sgpr, fbar) VALUES (0, 0, 0, 0);");
  }

  // rpd's gpuId of a GPU track: its device, else the viewer pid the layout gave it.
  int64_t GpuId(model::TrackId track) const {
    int32_t device = t_.tracks[track].device;
    return device >= 0 ? device : layout_.tracks[track].pid;
  }

  base::Status InsertApi(int64_t id, model::TrackId track, int64_t start, int64_t dur, int64_t name_id,
                         int64_t args_id) {
    const TrackView& v = layout_.tracks[track];
    api_->Bind(1, id);
    api_->Bind(2, v.pid);
    api_->Bind(3, v.tid);
    api_->Bind(4, start);
    api_->Bind(5, start + dur);
    api_->Bind(6, name_id);
    api_->Bind(7, args_id);
    ++counts_.api;
    return api_->Run();
  }

  base::Status InsertExt(int64_t api_id, std::string_view kind, int64_t external_id, int64_t python_id,
                         int64_t python_parent) {
    ext_api_->Bind(1, api_id);
    ext_api_->Bind(2, kind);
    if (external_id) ext_api_->Bind(3, external_id); else ext_api_->BindNull(3);
    if (python_id >= 0) ext_api_->Bind(4, python_id); else ext_api_->BindNull(4);
    if (python_parent >= 0) ext_api_->Bind(5, python_parent); else ext_api_->BindNull(5);
    return ext_api_->Run();
  }

  // API calls keep their order: rocpd_api.id = ApiTable row + 1.
  base::Status WriteApi() {
    auto api = db_.Query("INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!api.ok()) return api.status();
    api_.emplace(std::move(*api));
    auto ext = db_.Query(Insert(rpd_ext::kApiTable, rpd_ext::kApiColumns));
    if (!ext.ok()) return ext.status();
    ext_api_.emplace(std::move(*ext));
    auto empty = strings_->Of(std::string_view());
    if (!empty.ok()) return empty.status();
    empty_ = *empty;
    const auto& a = t_.api;
    for (size_t i = 0; i < a.size(); ++i) {
      auto name = strings_->Of(a.name[i]);
      if (!name.ok()) return name.status();
      GPUSCOPE_RETURN_IF_ERROR(InsertApi(static_cast<int64_t>(i) + 1, a.track[i], a.start_ns[i], a.dur_ns[i], *name, empty_));
      // rpd says the domain only through the name (hsa_* = HSA); say the rest explicitly.
      std::string_view n = t_.str(a.name[i]);
      model::ApiDomain implied = n.rfind("hsa_", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
      if (a.domain[i] != implied) {
        GPUSCOPE_RETURN_IF_ERROR(InsertExt(static_cast<int64_t>(i) + 1, model::ApiDomainName(a.domain[i]), 0, -1, -1));
      }
    }
    next_api_id_ = static_cast<int64_t>(a.size()) + 1;
    return base::Status::Ok();
  }

  base::Status WriteOps() {
    auto op = db_.Query("INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, completionSignal, start, end, "
                        "description_id, opType_id) VALUES (?1, ?2, ?3, 0, '', ?4, ?5, ?6, ?7)");
    auto link = db_.Query("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?1, ?2)");
    auto kapi = db_.Query("INSERT INTO rocpd_kernelapi(api_ptr_id, stream, gridX, gridY, gridZ, workgroupX, workgroupY, "
                          "workgroupZ, groupSegmentSize, privateSegmentSize, kernelArgAddress, aquireFence, "
                          "releaseFence, codeObject_id, kernelName_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, "
                          "'', '', '', 0, ?10)");
    auto capi = db_.Query("INSERT INTO rocpd_copyapi(api_ptr_id, stream, size, width, height, kind, dst, src, "
                          "dstDevice, srcDevice, sync, pinned) VALUES (?1, ?2, ?3, '', '', ?4, '', '', ?5, ?6, ?7, ?8)");
    auto ext = db_.Query(Insert(rpd_ext::kOpTable, rpd_ext::kOpColumns));
    auto ext_kernel = db_.Query(Insert(rpd_ext::kKernelTable, rpd_ext::kKernelColumns));
    for (auto* q : {&op, &link, &kapi, &capi, &ext, &ext_kernel}) {
      if (!q->ok()) return q->status();
    }
    // Launch calls with exactly one kernel get its launch parameters (rpd's kernel view joins
    // them to every op of the call, so a graph launch's kernels keep rpd's "Task" form: none).
    std::vector<uint8_t> kernels_per_call(t_.api.size(), 0);
    for (model::RowId l : t_.kernels.launch) {
      if (l != model::kNoRow && l < kernels_per_call.size() && kernels_per_call[l] < 2) ++kernels_per_call[l];
    }
    std::vector<bool> copy_written(t_.api.size(), false);
    auto kernel_type = strings_->Of(std::string_view("KernelExecution"));
    if (!kernel_type.ok()) return kernel_type.status();
    int64_t op_id = 0;
    auto insert_op = [&](model::TrackId track, int16_t device, int64_t start, int64_t dur, int64_t desc,
                         int64_t type) -> base::Status {
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
      auto name = strings_->Of(k.name[i]);
      if (!name.ok()) return name.status();
      GPUSCOPE_RETURN_IF_ERROR(insert_op(k.track[i], k.device[i], k.start_ns[i], k.dur_ns[i], *name, *kernel_type));
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
        kapi->Bind(10, *name);
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
      auto name = strings_->Of(m.name[i]);
      auto type = strings_->Of(OpType(m.kind[i]));
      if (!name.ok()) return name.status();
      if (!type.ok()) return type.status();
      GPUSCOPE_RETURN_IF_ERROR(insert_op(m.track[i], m.device[i], m.start_ns[i], m.dur_ns[i], *name, *type));
      GPUSCOPE_RETURN_IF_ERROR(insert_link(m.launch[i]));
      ext->Bind(1, op_id);
      ext->Bind(2, model::MemopKindName(m.kind[i]));
      ext->Bind(3, model::MemoryKindTitle(m.src[i]));
      ext->Bind(4, model::MemoryKindTitle(m.dst[i]));
      if (m.bytes[i] >= 0) ext->Bind(5, m.bytes[i]); else ext->BindNull(5);
      GPUSCOPE_RETURN_IF_ERROR(ext->Run());
      model::RowId l = m.launch[i];
      if (l != model::kNoRow && l < copy_written.size() && !copy_written[l]) {
        copy_written[l] = true;
        capi->Bind(1, static_cast<int64_t>(l) + 1);
        capi->Bind(2, std::to_string(layout_.tracks[m.track[i]].tid));
        // rpd_tracer writes '' for a size it does not know.
        if (m.bytes[i] >= 0) capi->Bind(3, m.bytes[i]); else capi->Bind(3, std::string_view());
        capi->Bind(4, HipMemcpyKind(m.kind[i]));
        capi->Bind(5, static_cast<int64_t>(m.device[i]));
        capi->Bind(6, static_cast<int64_t>(m.device[i]));
        std::string_view call = t_.str(t_.api.name[l]);
        capi->Bind(7, static_cast<int64_t>(call.find("Async") == std::string_view::npos));
        capi->Bind(8, static_cast<int64_t>(m.src[i] == model::MemoryKind::kPinned || m.dst[i] == model::MemoryKind::kPinned));
        GPUSCOPE_RETURN_IF_ERROR(capi->Run());
      }
    }
    return base::Status::Ok();
  }

  // CPU ranges, Python frames and instants as UserMarker rows (args = the text).
  base::Status WriteMarkers() {
    auto marker = strings_->Of(std::string_view("UserMarker"));
    if (!marker.ok()) return marker.status();
    const auto& c = t_.cpu;
    for (size_t i = 0; i < c.size(); ++i) {
      auto text = strings_->Of(c.name[i]);
      if (!text.ok()) return text.status();
      int64_t id = next_api_id_++;
      GPUSCOPE_RETURN_IF_ERROR(InsertApi(id, c.track[i], c.start_ns[i], c.dur_ns[i], *marker, *text));
      GPUSCOPE_RETURN_IF_ERROR(InsertExt(id, c.kind[i] == model::CpuRangeKind::kOp ? "op" : "annotation",
                                         static_cast<int64_t>(c.external_id[i]), -1, -1));
    }
    const auto& p = t_.python;
    for (size_t i = 0; i < p.size(); ++i) {
      auto text = strings_->Of(p.name[i]);
      if (!text.ok()) return text.status();
      int64_t id = next_api_id_++;
      GPUSCOPE_RETURN_IF_ERROR(InsertApi(id, p.track[i], p.start_ns[i], p.dur_ns[i], *marker, *text));
      GPUSCOPE_RETURN_IF_ERROR(InsertExt(id, "python", 0, p.python_id[i], p.python_parent_id[i]));
    }
    for (size_t i = 0; i < t_.instants.size(); ++i) {
      auto text = strings_->Of(t_.instants.name[i]);
      if (!text.ok()) return text.status();
      GPUSCOPE_RETURN_IF_ERROR(InsertApi(next_api_id_++, t_.instants.track[i], t_.instants.ts_ns[i], 0, *marker, *text));
    }
    return base::Status::Ok();
  }

  // GPU-side ranges (annotations projected on a stream, sync records): rpd has no table for
  // them, so they go to ext_gpuscope_gpurange only (not rocpd_op, whose views count work).
  base::Status WriteGpuRanges() {
    const auto& g = t_.gpu_ranges;
    if (g.size() == 0) return base::Status::Ok();
    auto q = db_.Query(Insert(rpd_ext::kGpuRangeTable, rpd_ext::kGpuRangeColumns));
    if (!q.ok()) return q.status();
    for (size_t i = 0; i < g.size(); ++i) {
      auto name = strings_->Of(g.name[i]);
      if (!name.ok()) return name.status();
      q->Bind(1, GpuId(g.track[i]));
      q->Bind(2, layout_.tracks[g.track[i]].tid);
      q->Bind(3, g.start_ns[i]);
      q->Bind(4, g.end_ns(i));
      q->Bind(5, g.kind[i] == model::GpuRangeKind::kSync ? "sync" : g.kind[i] == model::GpuRangeKind::kAnnotation ? "annotation" : "other");
      q->Bind(6, *name);
      if (g.correlation[i] != model::kNoCorrelation) q->Bind(7, static_cast<int64_t>(g.correlation[i])); else q->BindNull(7);
      GPUSCOPE_RETURN_IF_ERROR(q->Run());
      ++counts_.gpu_ranges;
    }
    return base::Status::Ok();
  }

  // Counter samples: a value holds from its sample to the next one of its series (rpd's
  // [start, end) convention); the last sample of a series is a point.
  base::Status WriteMonitor() {
    const auto& c = t_.counters;
    if (c.size() == 0) return base::Status::Ok();
    auto q = db_.Query("INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, end, value) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!q.ok()) return q.status();
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
      q->Bind(1, type);
      q->Bind(2, device);
      q->Bind(3, monitor);
      q->Bind(4, c.ts_ns[i]);
      q->Bind(5, next[i] == SIZE_MAX ? c.ts_ns[i] : c.ts_ns[next[i]]);
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", c.value[i]);
      q->Bind(6, std::string_view(buf));
      GPUSCOPE_RETURN_IF_ERROR(q->Run());
      ++counts_.monitor;
    }
    return base::Status::Ok();
  }

  const Trace& t_;
  SqliteDb& db_;
  TrackLayout layout_;
  std::optional<StringIds> strings_;
  std::optional<SqliteQuery> api_, ext_api_;
  int64_t empty_ = 0;
  int64_t next_api_id_ = 1;
  RpdWriteCounts counts_;
};

}  // namespace

base::StatusOr<RpdWriteCounts> WriteRpd(const Trace& trace, const std::string& path) {
  auto db = SqliteDb::Create(path);
  if (!db.ok()) return db.status();
  RpdWriter writer(trace, *db);
  auto counts = writer.Write();
  if (!counts.ok()) return base::Status::Error(path + ": writing the .rpd failed: " + counts.status().message());
  return counts;
}

}  // namespace gpuscope::output
