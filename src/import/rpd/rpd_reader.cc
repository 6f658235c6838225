// The rpd tables of GPU ops (kernels, copies, fills, other queue work) and their launch details.

#include "import/rpd/rpd_reader.h"

#include "base/numbers.h"
#include "format/rpd_ext.h"
#include "format/written_by.h"
#include "import/common/rocm_names.h"

namespace gpuscope::import::rpd {

using base::SqliteDb;
using model::Trace;
using namespace rocm;  // the ROCm name classifiers (ClassifyOp, CopyDirection, ...)

base::Status RpdReader::Read() {
  schema_ = db_.QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", "");
  t_.meta.format_version =
      schema_.empty() ? "schema v1 (no schema_version tag)" : "schema v" + schema_;
  t_.meta.producer = "rocmProfileData rpd_tracer";
  t_.meta.clock = "CLOCK_MONOTONIC (ns)";
  if (auto q = db_.Query("SELECT tag, value FROM rocpd_metadata");
      q.ok() && db_.Has("rocpd_metadata")) {
    while (q->Step()) t_.meta.properties[std::string(q->Text(0))] = std::string(q->Text(1));
  }
  // Written by gpuscope's export: say so, and keep the source's clock.
  if (auto f = t_.meta.properties.find(std::string(format::rpd_ext::kTagSourceFormat));
      f != t_.meta.properties.end()) {
    auto tag = [&](std::string_view k) { return t_.meta.properties[std::string(k)]; };
    t_.meta.producer = format::WrittenByLabel(tag(format::rpd_ext::kTagWrittenBy),
                                              tag(format::rpd_ext::kTagSourceProducer), f->second,
                                              tag(format::rpd_ext::kTagSource));
    t_.meta.clock = t_.meta.properties[std::string(format::rpd_ext::kTagClock)];
  }
  for (auto [tag, out] : {std::pair{format::rpd_ext::kTagRank, &t_.meta.rank},
                          std::pair{format::rpd_ext::kTagWorldSize, &t_.meta.world_size}}) {
    auto f = t_.meta.properties.find(std::string(tag));
    if (f == t_.meta.properties.end()) continue;
    auto v = base::ParseInt64(f->second);
    if (v && *v >= 0 && *v <= INT32_MAX) *out = static_cast<int32_t>(*v);
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
  GPUSCOPE_RETURN_IF_ERROR(ReadExtMemory());
  GPUSCOPE_RETURN_IF_ERROR(ReadExtPython());
  ApplyNameTags();
  for (auto [table, label] :
       {std::pair{"rocpd_stackframe", "API call stack frames (rocpd_stackframe; not modelled)"},
        std::pair{"rocpd_counter", "per-op counter values (rocpd_counter; not modelled)"}}) {
    if (!db_.Has(table)) continue;
    int64_t n = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0);
    if (n > 0) t_.record_counts[label] = static_cast<uint64_t>(n);
  }
  return base::Status::Ok();
}

model::TrackId RpdReader::GpuTrack(int64_t gpu, int64_t queue) {
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

RpdReader::Launch RpdReader::ReadLaunch(const base::SqliteQuery& q) {
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

base::Status RpdReader::ReadLaunchDetails() {
  if (db_.Has("rocpd_api_ops")) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query("SELECT op_id, api_id FROM rocpd_api_ops"));
    while (q.Step()) op_api_.emplace_back(q.Int(0), q.Int(1));
    GPUSCOPE_RETURN_IF_ERROR(q.status());
    std::sort(op_api_.begin(), op_api_.end());
  }
  if (db_.Has("rocpd_kernelapi")) {
    bool codeobj =
        db_.Has("rocpd_kernelcodeobject") && ColumnSet(db_, "rocpd_kernelapi").Has("codeObject_id");
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q,
        db_.Query(
            std::string(
                "SELECT k.api_ptr_id, k.gridX, k.gridY, k.gridZ, k.workgroupX, k.workgroupY, "
                "k.workgroupZ, k.groupSegmentSize, ") +
            (codeobj
                 ? "co.vgpr FROM rocpd_kernelapi k LEFT JOIN rocpd_kernelcodeobject co ON co.id = "
                   "k.codeObject_id"
                 : "NULL FROM rocpd_kernelapi k")));
    while (q.Step()) launches_.push_back(ReadLaunch(q));
    GPUSCOPE_RETURN_IF_ERROR(q.status());
    std::sort(launches_.begin(), launches_.end(),
              [](const Launch& a, const Launch& b) { return a.api < b.api; });
  }
  if (db_.Has("rocpd_copyapi")) {
    // size can be the text '' (not set) in real files: typeof() tells an unknown size from 0.
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q, db_.Query("SELECT api_ptr_id, size, typeof(size) FROM rocpd_copyapi"));
    while (q.Step()) {
      int64_t bytes = -1;
      std::string_view type = q.Text(2);
      if (type == "integer" && q.Int(1) >= 0) {
        bytes = q.Int(1);
      } else if (type == "text" || type == "real") {
        auto v = base::ParseInt64(q.Text(1));
        bytes = v && *v >= 0 ? *v : -1;
      }
      copy_size_.emplace_back(q.Int(0), bytes);
    }
    GPUSCOPE_RETURN_IF_ERROR(q.status());
    std::sort(copy_size_.begin(), copy_size_.end());
  }
  return base::Status::Ok();
}

base::Status RpdReader::ReadOps() {
  if (!db_.Has("rocpd_op")) {
    t_.meta.not_collected.push_back("GPU ops (no rocpd_op table)");
    return base::Status::Ok();
  }
  GPUSCOPE_RETURN_IF_ERROR(ReadLaunchDetails());
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT start, end, gpuId, queueId, description_id, opType_id, id FROM rocpd_op"));
  std::unordered_map<model::StringId, OpClass> classes;
  while (q.Step()) {
    int64_t start = TimeAt(q, 0);
    int64_t dur = model::DurationBetween(start, TimeAt(q, 1));
    model::StringId desc = strings_.Get(q.Int(4));
    model::StringId type = strings_.Get(q.Int(5));
    auto [cit, inserted] = classes.emplace(type, OpClass::kOther);
    if (inserted) cit->second = ClassifyOp(t_.str(type));
    OpClass cls = cit->second;
    // CUPTI-backend files use the kernel name as opType: an unknown type with a name is a kernel.
    if (cls == OpClass::kOther && !t_.str(type).empty() && !IsNonWork(t_.str(type)))
      cls = OpClass::kKernel;
    auto link = FindSorted(op_api_, q.Int(6));
    int64_t api = link == op_api_.end() ? -1 : link->second;
    uint64_t corr = api < 0 ? model::kNoCorrelation : static_cast<uint64_t>(api);
    model::TrackId track = GpuTrack(q.Int(2), q.Int(3));
    auto device = static_cast<int16_t>(q.Int(2));
    if (cls == OpClass::kKernel) {
      auto row =
          model::MakeSlice<model::KernelRow>(start, dur, t_.str(desc).empty() ? type : desc, track);
      row.device = device;
      row.correlation = corr;
      const Launch* l = nullptr;
      if (auto it = api < 0 ? launches_.end() : FindSorted(launches_, api); it != launches_.end())
        l = &*it;
      if (!l && !ext_kernel_.empty()) {
        if (auto e = FindSorted(ext_kernel_, q.Int(6)); e != ext_kernel_.end()) l = &*e;
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
      if (auto e = FindSorted(ext_op_, q.Int(6)); e != ext_op_.end()) {
        row.kind = e->kind, row.src = e->src, row.dst = e->dst, row.bytes = e->bytes;
      }
      t_.memops.Append(row);
    } else {
      auto row = model::MakeSlice<model::GpuRangeRow>(start, dur, type, track);
      row.correlation = corr;
      row.kind = model::GpuRangeKind::kOther;
      t_.gpu_ranges.Append(row);
    }
  }
  return q.status();
}

bool RpdReader::IsNonWork(std::string_view t) {
  return t == "Marker" || t == "InternalMarker" || t == "Barrier" || t == "StreamWait" ||
         t == "StreamWrite" || t == "User" || t == "MapBuffer" || t == "MapImage" ||
         t == "UnmapMemObject" || t == "SvmMap" || t == "SvmUnmap" || t == "SvmFree" ||
         t == "MigrateMemObjects" || t == "AcquireGLObjects" || t == "ReleaseGLObjects" ||
         t == "Unknown command kind";
}

}  // namespace gpuscope::import::rpd
