// What gpuscope's .rpd export keeps beside the rpd tables (see format/rpd_ext.h).

#include "import/rpd/rpd_reader.h"

#include "base/numbers.h"
#include "import/common/rocm_names.h"

namespace gpuscope::import::rpd {

using base::SqliteDb;
using model::Trace;
using namespace rocm;  // the ROCm name classifiers (ClassifyOp, CopyDirection, ...)

bool RpdReader::UsableExt(std::string_view table, std::initializer_list<std::string_view> columns) {
  if (!db_.Has(table)) return false;
  std::string missing = ColumnSet(db_, table).Missing(columns);
  if (missing.empty()) return true;
  t_.problems.Add("rpd.ext_table_columns", std::string(table) + " lacks " + missing + "; ignored");
  return false;
}

base::Status RpdReader::ReadExtensions() {
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

void RpdReader::ApplyNameTags() {
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

base::Status RpdReader::ReadExtGpuRanges() {
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

}  // namespace gpuscope::import::rpd
