#include "import/rocm/rpd_importer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/numbers.h"
#include "base/sqlite_db.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"
#include "import/rocm/rocm_names.h"
#include "model/linker.h"

namespace gpuscope::import::rocm {
namespace {

using base::SqliteDb;
using model::Trace;

class RpdReader {
 public:
  RpdReader(const SqliteDb& db, Trace* trace)
      : db_(db), t_(*trace), strings_(db, trace, "SELECT string FROM rocpd_string WHERE id = ?1") {}

  base::Status Read() {
    schema_ = db_.QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", "");
    t_.meta.format = "rpd";
    t_.meta.format_version = schema_.empty() ? "schema v1 (no schema_version tag)" : "schema v" + schema_;
    t_.meta.producer = "rocmProfileData rpd_tracer";
    t_.meta.clock = "CLOCK_MONOTONIC (ns)";
    if (auto q = db_.Query("SELECT tag, value FROM rocpd_metadata"); q.ok() && db_.Has("rocpd_metadata")) {
      while (q->Step()) t_.meta.properties[std::string(q->Text(0))] = std::string(q->Text(1));
    }
    // Written by gpuscope's export: say so, and keep the source's clock.
    if (auto f = t_.meta.properties.find("gpuscope::source_format"); f != t_.meta.properties.end()) {
      t_.meta.producer = "gpuscope convert, from " + f->second + " (" + t_.meta.properties["gpuscope::source"] + ")";
      t_.meta.clock = t_.meta.properties["gpuscope::clock"];
    }
    // v3 moved API args and marker text to rocpd_ustring.
    if (db_.Has("rocpd_ustring")) {
      ustrings_.emplace(db_, &t_, "SELECT string FROM rocpd_ustring WHERE id = ?1");
    }
    GPUSCOPE_RETURN_IF_ERROR(ReadExtensions());
    GPUSCOPE_RETURN_IF_ERROR(ReadOps());
    GPUSCOPE_RETURN_IF_ERROR(ReadApi());
    GPUSCOPE_RETURN_IF_ERROR(ReadAutograd());
    GPUSCOPE_RETURN_IF_ERROR(ReadMonitor());
    GPUSCOPE_RETURN_IF_ERROR(ReadExtGpuRanges());
    ApplyNameTags();
    for (auto [table, label] : {std::pair{"rocpd_stackframe", "API call stack frames (rocpd_stackframe; not modelled)"},
                                std::pair{"rocpd_counter", "per-op counter values (rocpd_counter; not modelled)"}}) {
      if (!db_.Has(table)) continue;
      int64_t n = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0);
      if (n > 0) t_.record_counts[label] = static_cast<uint64_t>(n);
    }
    return base::Status::Ok();
  }

 private:
  model::StringId Arg(int64_t id) { return ustrings_ ? ustrings_->Get(id) : strings_.Get(id); }

  model::TrackId GpuTrack(int64_t gpu, int64_t queue) {
    bool created = false;
    model::TrackId id = gpu_tracks_.Get(gpu, queue, &created);
    if (created && devices_.emplace(gpu).second) {
      model::Device d;
      d.id = static_cast<int32_t>(gpu);
      d.name = "AMD GPU (rpd gpuId " + std::to_string(gpu) + ")";
      d.vendor = model::Vendor::kAmd;
      t_.devices.push_back(std::move(d));
    }
    return id;
  }

  int64_t Duration(int64_t start, int64_t end, const char* table) {
    return DurationOrZero(t_, start, end, "rpd.end_before_start", table);
  }

  // The launch details of the API calls, read once into arrays sorted by API id. Joining them
  // to rocpd_op in SQL would make SQLite build a transient index over the unindexed
  // rocpd_api_ops.op_id for every import (2x slower on a 1 M-op file).
  struct Launch {
    int64_t api = 0;
    model::Dim3 grid{0, 0, 0}, block{0, 0, 0};
    uint32_t lds = 0, vgpr = 0;
  };
  std::vector<std::pair<int64_t, int64_t>> op_api_;   // (op id, api id), by op id
  std::vector<Launch> launches_;                      // by api id
  std::vector<std::pair<int64_t, int64_t>> copy_size_;  // (api id, bytes or -1), by api id

  // gpuscope's extension tables (written by its .rpd export; absent from other files): what
  // rpd v2 cannot say about a UserMarker range, an API call's domain, or a copy.
  struct ExtApi {
    int64_t api = 0;
    std::string kind;  // op, annotation, python, or an API domain name
    int64_t external_id = 0, python_id = -1, python_parent = -1;
  };
  struct ExtOp {
    int64_t op = 0;
    model::MemopKind kind = model::MemopKind::kOther;
    model::MemoryKind src = model::MemoryKind::kUnknown, dst = model::MemoryKind::kUnknown;
    int64_t bytes = -1;
  };
  std::vector<ExtApi> ext_api_;  // by api id
  std::vector<ExtOp> ext_op_;    // by op id
  std::vector<Launch> ext_kernel_;  // launch details by op id (Launch::api holds the op id)
  static int64_t Key(const ExtApi& e) { return e.api; }
  static int64_t Key(const ExtOp& e) { return e.op; }

  // gpuscope's extension table `table`, when it has all of `columns`. One that lacks some (a file
  // edited by hand) is counted as a problem and left out; the rpd tables are still read.
  bool UsableExt(std::string_view table, std::initializer_list<std::string_view> columns) {
    if (!db_.Has(table)) return false;
    std::string missing = ColumnSet(db_, table).Missing(columns);
    if (missing.empty()) return true;
    t_.problems.Add("rpd.ext_table_columns", std::string(table) + " lacks " + missing + "; ignored");
    return false;
  }

  base::Status ReadExtensions() {
    if (UsableExt("ext_gpuscope_api", {"api_ptr_id", "kind", "external_id", "python_id", "python_parent_id"})) {
      auto q = db_.Query("SELECT api_ptr_id, kind, external_id, python_id, python_parent_id FROM ext_gpuscope_api "
                         "ORDER BY api_ptr_id");
      if (!q.ok()) return q.status();
      while (q->Step()) {
        ExtApi e;
        e.api = q->Int(0);
        e.kind = std::string(q->Text(1));
        if (!q->IsNull(2)) e.external_id = q->Int(2);
        if (!q->IsNull(3)) e.python_id = q->Int(3);
        if (!q->IsNull(4)) e.python_parent = q->Int(4);
        ext_api_.push_back(std::move(e));
      }
      GPUSCOPE_RETURN_IF_ERROR(q->status());
    }
    if (UsableExt("ext_gpuscope_kernel", {"op_ptr_id", "gridX", "gridY", "gridZ", "workgroupX", "workgroupY",
                                          "workgroupZ", "groupSegmentSize"})) {
      auto q = db_.Query("SELECT op_ptr_id, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize, "
                         "NULL FROM ext_gpuscope_kernel ORDER BY op_ptr_id");
      if (!q.ok()) return q.status();
      while (q->Step()) ext_kernel_.push_back(ReadLaunch(*q));  // Launch::api holds the op id here
      GPUSCOPE_RETURN_IF_ERROR(q->status());
    }
    if (UsableExt("ext_gpuscope_op", {"op_ptr_id", "copy_kind", "src", "dst", "bytes"})) {
      auto q = db_.Query("SELECT op_ptr_id, copy_kind, src, dst, bytes FROM ext_gpuscope_op ORDER BY op_ptr_id");
      if (!q.ok()) return q.status();
      while (q->Step()) {
        ExtOp e;
        e.op = q->Int(0);
        model::ParseMemopKind(q->Text(1), &e.kind);
        e.src = model::ParseMemoryKind(q->Text(2));
        e.dst = model::ParseMemoryKind(q->Text(3));
        if (!q->IsNull(4)) e.bytes = q->Int(4);
        ext_op_.push_back(e);
      }
      GPUSCOPE_RETURN_IF_ERROR(q->status());
    }
    return base::Status::Ok();
  }

  template <typename V, typename K>
  static auto FindSorted(const V& v, K key) {
    auto it = std::lower_bound(v.begin(), v.end(), key, [](const auto& e, K k) { return Key(e) < k; });
    return it != v.end() && Key(*it) == key ? it : v.end();
  }
  static int64_t Key(const std::pair<int64_t, int64_t>& p) { return p.first; }
  static int64_t Key(const Launch& l) { return l.api; }

  // One launch row: (id, gridX..Z, workgroupX..Z, groupSegmentSize, vgpr or NULL), the columns
  // both rocpd_kernelapi and ext_gpuscope_kernel are read as.
  static Launch ReadLaunch(const base::SqliteQuery& q) {
    Launch l;
    l.api = q.Int(0);
    for (int i = 0; i < 3; ++i) {
      l.grid[i] = static_cast<uint32_t>(q.Int(1 + i));
      l.block[i] = static_cast<uint32_t>(q.Int(4 + i));
    }
    l.lds = static_cast<uint32_t>(q.Int(7));
    l.vgpr = static_cast<uint32_t>(q.Int(8));
    return l;
  }

  base::Status ReadLaunchDetails() {
    if (db_.Has("rocpd_api_ops")) {
      auto q = db_.Query("SELECT op_id, api_id FROM rocpd_api_ops");
      if (!q.ok()) return q.status();
      while (q->Step()) op_api_.emplace_back(q->Int(0), q->Int(1));
      GPUSCOPE_RETURN_IF_ERROR(q->status());
      std::sort(op_api_.begin(), op_api_.end());
    }
    if (db_.Has("rocpd_kernelapi")) {
      bool codeobj = db_.Has("rocpd_kernelcodeobject") && ColumnSet(db_, "rocpd_kernelapi").Has("codeObject_id");
      auto q = db_.Query(std::string("SELECT k.api_ptr_id, k.gridX, k.gridY, k.gridZ, k.workgroupX, k.workgroupY, "
                                     "k.workgroupZ, k.groupSegmentSize, ") +
                         (codeobj ? "co.vgpr FROM rocpd_kernelapi k LEFT JOIN rocpd_kernelcodeobject co ON co.id = "
                                    "k.codeObject_id"
                                  : "NULL FROM rocpd_kernelapi k"));
      if (!q.ok()) return q.status();
      while (q->Step()) launches_.push_back(ReadLaunch(*q));
      GPUSCOPE_RETURN_IF_ERROR(q->status());
      std::sort(launches_.begin(), launches_.end(), [](const Launch& a, const Launch& b) { return a.api < b.api; });
    }
    if (db_.Has("rocpd_copyapi")) {
      // size can be the text '' (not set) in real files: typeof() tells an unknown size from 0.
      auto q = db_.Query("SELECT api_ptr_id, size, typeof(size) FROM rocpd_copyapi");
      if (!q.ok()) return q.status();
      while (q->Step()) {
        int64_t bytes = -1;
        std::string_view type = q->Text(2);
        if (type == "integer" && q->Int(1) >= 0) {
          bytes = q->Int(1);
        } else if (type == "text" || type == "real") {
          auto v = base::ParseInt64(q->Text(1));
          bytes = v && *v >= 0 ? *v : -1;
        }
        copy_size_.emplace_back(q->Int(0), bytes);
      }
      GPUSCOPE_RETURN_IF_ERROR(q->status());
      std::sort(copy_size_.begin(), copy_size_.end());
    }
    return base::Status::Ok();
  }

  base::Status ReadOps() {
    if (!db_.Has("rocpd_op")) {
      t_.meta.not_collected.push_back("GPU ops (no rocpd_op table)");
      return base::Status::Ok();
    }
    GPUSCOPE_RETURN_IF_ERROR(ReadLaunchDetails());
    auto q = db_.Query("SELECT start, end, gpuId, queueId, description_id, opType_id, id FROM rocpd_op");
    if (!q.ok()) return q.status();
    std::unordered_map<model::StringId, OpClass> classes;
    while (q->Step()) {
      int64_t start = q->Int(0);
      int64_t dur = Duration(start, q->Int(1), "rocpd_op");
      model::StringId desc = strings_.Get(q->Int(4));
      model::StringId type = strings_.Get(q->Int(5));
      auto [cit, inserted] = classes.emplace(type, OpClass::kOther);
      if (inserted) cit->second = ClassifyOp(t_.str(type));
      OpClass cls = cit->second;
      // CUPTI-backend files use the kernel name as opType: an unknown type with a name is a kernel.
      if (cls == OpClass::kOther && !t_.str(type).empty() && !IsNonWork(t_.str(type))) cls = OpClass::kKernel;
      auto link = FindSorted(op_api_, q->Int(6));
      int64_t api = link == op_api_.end() ? -1 : link->second;
      uint64_t corr = api < 0 ? model::kNoCorrelation : static_cast<uint64_t>(api);
      model::TrackId track = GpuTrack(q->Int(2), q->Int(3));
      auto device = static_cast<int16_t>(q->Int(2));
      if (cls == OpClass::kKernel) {
        model::KernelRow row;
        row.start_ns = start;
        row.dur_ns = dur;
        row.name = t_.str(desc).empty() ? type : desc;
        row.track = track;
        row.device = device;
        row.correlation = corr;
        const Launch* l = nullptr;
        if (auto it = api < 0 ? launches_.end() : FindSorted(launches_, api); it != launches_.end()) l = &*it;
        if (!l && !ext_kernel_.empty()) {
          if (auto e = FindSorted(ext_kernel_, q->Int(6)); e != ext_kernel_.end()) l = &*e;
        }
        if (l) {
          row.grid = l->grid;
          row.block = l->block;
          row.shared_mem = l->lds;
          row.registers = l->vgpr;
        }
        row.flags = model::KernelWorkFlags(t_.str(row.name));
        t_.kernels.Append(row);
        if (t_.str(type) == "Task") ++t_.record_counts["kernels run by HIP graphs (rpd Task ops)"];
      } else if (cls == OpClass::kCopy || cls == OpClass::kFill) {
        model::MemopRow row;
        row.start_ns = start;
        row.dur_ns = dur;
        row.track = track;
        row.device = device;
        row.correlation = corr;
        auto c = api < 0 ? copy_size_.end() : FindSorted(copy_size_, api);
        if (c != copy_size_.end()) row.bytes = c->second;
        if (cls == OpClass::kFill) {
          row.kind = model::MemopKind::kMemset;
          row.dst = model::MemoryKind::kDevice;
          row.name = t_.strings.Intern("Memset (Device)");
        } else {
          row.kind = CopyDirection(t_.str(type));
          CopyEnds(row.kind, &row.src, &row.dst);
          row.name = t_.strings.Intern(CopyName(row.kind));
        }
        // roctracer leaves a copy's description empty; a named one keeps its name.
        if (!t_.str(desc).empty()) row.name = desc;
        if (auto e = FindSorted(ext_op_, q->Int(6)); e != ext_op_.end()) {
          row.kind = e->kind, row.src = e->src, row.dst = e->dst, row.bytes = e->bytes;
        }
        t_.memops.Append(row);
      } else {
        model::GpuRangeRow row;
        row.start_ns = start;
        row.dur_ns = dur;
        row.name = type;
        row.track = track;
        row.correlation = corr;
        row.kind = model::GpuRangeKind::kOther;
        t_.gpu_ranges.Append(row);
      }
    }
    return q->status();
  }

  // CLR command kinds that are queue bookkeeping, not work.
  static bool IsNonWork(std::string_view t) {
    return t == "Marker" || t == "InternalMarker" || t == "Barrier" || t == "StreamWait" || t == "StreamWrite" ||
           t == "User" || t == "MapBuffer" || t == "MapImage" || t == "UnmapMemObject" || t == "SvmMap" ||
           t == "SvmUnmap" || t == "SvmFree" || t == "MigrateMemObjects" || t == "AcquireGLObjects" ||
           t == "ReleaseGLObjects" || t == "Unknown command kind";
  }

  base::Status ReadApi() {
    if (!db_.Has("rocpd_api")) {
      t_.meta.not_collected.push_back("API calls (no rocpd_api table)");
      return base::Status::Ok();
    }
    ColumnSet c(db_, "rocpd_api");
    auto q = db_.Query("SELECT " + c.Select({"id", "pid", "tid", "start", "end", "apiName_id", "args_id"}) +
                       " FROM rocpd_api");
    if (!q.ok()) return q.status();
    std::unordered_map<model::StringId, int> kind;  // 0 call, 1 marker, 2 overhead
    want_api_index_ = db_.Has("ext_autogradapi");
    model::StringId marker = t_.strings.Intern("UserMarker");
    while (q->Step()) {
      model::StringId name = strings_.Get(q->Int(5));
      auto [it, inserted] = kind.emplace(name, 0);
      if (inserted) it->second = name == marker ? 1 : IsRpdOverheadApi(t_.str(name)) ? 2 : 0;
      int64_t start = q->Int(3);
      int64_t dur = Duration(start, q->Int(4), "rocpd_api");
      model::TrackId track = cpu_tracks_.Get(q->Int(1), q->Int(2));
      if (it->second == 2) {
        ++t_.record_counts["rpd tracer overhead rows (left out)"];
        continue;
      }
      auto ext = ext_api_.empty() ? ext_api_.end() : FindSorted(ext_api_, q->Int(0));
      if (it->second == 1) {
        model::StringId text = q->IsNull(6) ? t_.strings.Intern("") : Arg(q->Int(6));
        if (ext != ext_api_.end() && ext->kind == "python") {
          model::PythonFrameRow row;
          row.start_ns = start;
          row.dur_ns = dur;
          row.name = text;
          row.track = track;
          row.python_id = ext->python_id;
          row.python_parent_id = ext->python_parent;
          t_.python.Append(row);
        } else if (ext != ext_api_.end() && (ext->kind == "op" || ext->kind == "annotation")) {
          model::CpuRangeRow row;
          row.start_ns = start;
          row.dur_ns = dur;
          row.name = text;
          row.track = track;
          row.external_id = static_cast<uint64_t>(ext->external_id);
          row.kind = ext->kind == "op" ? model::CpuRangeKind::kOp : model::CpuRangeKind::kAnnotation;
          t_.cpu.Append(row);
        } else if (dur == 0) {
          t_.instants.Append(start, text, track);  // roctxMark
        } else {
          model::CpuRangeRow row;
          row.start_ns = start;
          row.dur_ns = dur;
          row.name = text;
          row.track = track;
          row.kind = model::CpuRangeKind::kAnnotation;
          t_.cpu.Append(row);
        }
        continue;
      }
      model::ApiRow row;
      row.start_ns = start;
      row.dur_ns = dur;
      row.name = name;
      row.track = track;
      row.correlation = static_cast<uint64_t>(q->Int(0));
      row.domain = ApiDomainOf(t_.str(name));
      if (ext != ext_api_.end()) model::ParseApiDomain(ext->kind, &row.domain);
      if (want_api_index_) api_index_.emplace(q->Int(0), static_cast<uint32_t>(t_.api.size()));
      t_.api.Append(row);
    }
    return q->status();
  }

  // ext_autogradapi (rocpd.autograd post-processor) names the autograd op behind each API call
  // but has no op times: an op becomes a CPU range spanning its calls on the thread.
  base::Status ReadAutograd() {
    if (!db_.Has("ext_autogradapi")) return base::Status::Ok();
    ColumnSet c(db_, "ext_autogradapi");
    if (!c.Has("api_ptr_id") || !c.Has("autogradName_id")) {
      t_.problems.Add("rpd.ext_autogradapi_columns", "ext_autogradapi lacks api_ptr_id/autogradName_id; ignored");
      return base::Status::Ok();
    }
    auto q = db_.Query("SELECT " + c.Select({"api_ptr_id", "autogradName_id", "op_id", "seq"}) + " FROM ext_autogradapi");
    if (!q.ok()) return q.status();
    struct Span {
      int64_t start, end;
      model::StringId name;
      model::TrackId track;
    };
    std::map<std::pair<int64_t, int64_t>, Span> ops;  // (op id or seq, name id) -> span
    while (q->Step()) {
      auto it = api_index_.find(q->Int(0));
      if (it == api_index_.end()) continue;
      size_t i = it->second;
      int64_t op = q->IsNull(2) ? q->Int(3) : q->Int(2);
      auto key = std::make_pair(op, q->Int(1));
      auto [s, inserted] = ops.emplace(key, Span{t_.api.start_ns[i], t_.api.end_ns(i), 0, t_.api.track[i]});
      if (inserted) s->second.name = strings_.Get(q->Int(1));
      s->second.start = std::min(s->second.start, t_.api.start_ns[i]);
      s->second.end = std::max(s->second.end, t_.api.end_ns(i));
    }
    for (const auto& [key, s] : ops) {
      model::CpuRangeRow row;
      row.start_ns = s.start;
      row.dur_ns = s.end - s.start;
      row.name = s.name;
      row.track = s.track;
      row.kind = model::CpuRangeKind::kOp;
      t_.cpu.Append(row);
    }
    if (!ops.empty()) t_.record_counts["autograd ops (spans of their API calls)"] = ops.size();
    return q->status();
  }

  // Device, process and thread names that gpuscope's export keeps as rocpd_metadata tags.
  void ApplyNameTags() {
    auto tagged = [&](std::string_view prefix, auto&& apply) {
      for (const auto& [tag, value] : t_.meta.properties) {
        if (tag.rfind(prefix, 0) == 0) apply(std::string_view(tag).substr(prefix.size()), value);
      }
    };
    tagged("gpuscope::device_name::", [&](std::string_view id, const std::string& name) {
      bool found = false;
      for (model::Device& d : t_.devices) {
        if (std::to_string(d.id) == id) d.name = name, found = true;
      }
      auto n = base::ParseInt64(id);
      if (!found && n) {  // a device of the source that ran nothing
        model::Device d;
        d.id = static_cast<int32_t>(*n);
        d.name = name;
        t_.devices.push_back(std::move(d));
      }
    });
    tagged("gpuscope::device_vendor::", [&](std::string_view id, const std::string& vendor) {
      for (model::Device& d : t_.devices) {
        if (std::to_string(d.id) != id) continue;
        d.vendor = vendor == model::VendorName(model::Vendor::kNvidia) ? model::Vendor::kNvidia
                   : vendor == model::VendorName(model::Vendor::kAmd)  ? model::Vendor::kAmd
                                                                       : model::Vendor::kUnknown;
      }
    });
    tagged("gpuscope::process_name::", [&](std::string_view pid, const std::string& name) {
      if (auto p = base::ParseInt64(pid)) t_.process_names[*p] = t_.strings.Intern(name);
    });
    tagged("gpuscope::thread_name::", [&](std::string_view key, const std::string& name) {
      auto slash = key.find('/');
      if (slash == std::string_view::npos) return;
      for (model::Track& tr : t_.tracks) {
        if (tr.kind == model::TrackKind::kCpuThread && t_.str(tr.pid_text) == key.substr(0, slash) &&
            t_.str(tr.tid_text) == key.substr(slash + 1)) {
          tr.name = t_.strings.Intern(name);
        }
      }
    });
  }

  // GPU-side ranges that gpuscope's export keeps beside the rpd tables.
  base::Status ReadExtGpuRanges() {
    if (!UsableExt("ext_gpuscope_gpurange", {"gpuId", "queueId", "start", "end", "kind", "name_id", "correlation"})) {
      return base::Status::Ok();
    }
    auto q = db_.Query("SELECT gpuId, queueId, start, end, kind, name_id, correlation FROM ext_gpuscope_gpurange");
    if (!q.ok()) return q.status();
    while (q->Step()) {
      model::GpuRangeRow row;
      row.start_ns = q->Int(2);
      row.dur_ns = Duration(row.start_ns, q->Int(3), "ext_gpuscope_gpurange");
      row.track = GpuTrack(q->Int(0), q->Int(1));
      std::string_view kind = q->Text(4);
      row.kind = kind == "sync" ? model::GpuRangeKind::kSync
                 : kind == "annotation" ? model::GpuRangeKind::kAnnotation
                                        : model::GpuRangeKind::kOther;
      row.name = strings_.Get(q->Int(5));
      row.correlation = q->IsNull(6) ? model::kNoCorrelation : static_cast<uint64_t>(q->Int(6));
      t_.gpu_ranges.Append(row);
    }
    return q->status();
  }

  base::Status ReadMonitor() {
    if (!db_.Has("rocpd_monitor")) return base::Status::Ok();
    auto q = db_.Query("SELECT deviceType, deviceId, monitorType, start, value FROM rocpd_monitor");
    if (!q.ok()) return q.status();
    std::map<std::tuple<std::string, int64_t, std::string>, std::pair<model::StringId, model::TrackId>> series;
    while (q->Step()) {
      auto key = std::make_tuple(std::string(q->Text(0)), q->Int(1), std::string(q->Text(2)));
      auto it = series.find(key);
      if (it == series.end()) {
        std::string device = std::get<0>(key) + std::to_string(std::get<1>(key));
        model::TrackId track = t_.InternTrack(model::TrackKind::kOther, "monitor", device);
        it = series.emplace(key, std::make_pair(t_.strings.Intern(device + " " + std::get<2>(key)), track)).first;
      }
      auto v = base::ParseDouble(q->Text(4));
      if (!v) {
        t_.problems.Add("rpd.bad_monitor_value", "rocpd_monitor value '" + std::string(q->Text(4)) + "' is not a number");
        continue;
      }
      t_.counters.Append(q->Int(3), *v, it->second.first, it->second.second);
    }
    return q->status();
  }

  const SqliteDb& db_;
  Trace& t_;
  StringIdMap strings_;
  std::optional<StringIdMap> ustrings_;
  std::string schema_;
  NumericTracks gpu_tracks_{&t_, model::TrackKind::kGpuStream};
  NumericTracks cpu_tracks_{&t_, model::TrackKind::kCpuThread};
  std::set<int64_t> devices_;
  std::unordered_map<int64_t, uint32_t> api_index_;  // rocpd_api.id -> ApiTable row (before sorting)
  bool want_api_index_ = false;  // only ext_autogradapi needs api_index_
};

}  // namespace

bool RpdImporter::Recognizes(const base::FileSniff& sniff) const {
  return sniff.sqlite && sniff.Has("rocpd_op") && sniff.Has("rocpd_api") && sniff.Has("rocpd_string") &&
         // rocprofv3's rocpd databases also have rocpd_* names but no rocpd_op.
         !sniff.Has("rocpd_kernel_dispatch");
}

base::StatusOr<model::Trace> RpdImporter::Import(const std::string& path, const ImportOptions&) const {
  auto db = SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return db.status();
  Trace trace;
  trace.meta.path = path;
  RpdReader reader(*db, &trace);
  base::Status st = reader.Read();
  if (!st.ok()) {
    if (trace.EventCount() == 0) return st;
    trace.meta.import_error = st.message();
  }
  if (trace.EventCount() == 0 && trace.meta.import_error.empty()) {
    return base::Status::Error(path + ": the .rpd holds no events (no GPU ops, API calls, markers or monitor "
                               "samples); was the tracer started (RPDT_AUTOSTART=0 needs rpdTracerControl.start())?");
  }
  model::LinkTrace(trace);
  return trace;
}

}  // namespace gpuscope::import::rocm
