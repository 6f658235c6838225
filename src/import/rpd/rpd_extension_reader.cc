// What gpuscope's .rpd export keeps beside the rpd tables (see format/rpd_ext.h).

#include "base/numbers.h"
#include "format/rpd_ext.h"
#include "format/rpd_python_frames.h"
#include "import/common/rocm_names.h"
#include "import/rpd/rpd_reader.h"

namespace gpuscope::import::rpd {

using base::SqliteDb;
using model::Trace;
using namespace rocm;  // the ROCm name classifiers (ClassifyOp, CopyDirection, ...)
namespace ext = format::rpd_ext;

namespace {

// "SELECT <columns>[, extra] FROM <table>[ ORDER BY first column]".
std::string Select(std::string_view table, std::string_view columns, std::string_view extra,
                   bool order) {
  std::string q =
      "SELECT " + std::string(columns) + std::string(extra) + " FROM " + std::string(table);
  if (order) q += " ORDER BY " + std::string(columns.substr(0, columns.find(',')));
  return q;
}

}  // namespace

bool RpdReader::UsableExt(std::string_view table, std::string_view columns) {
  if (!db_.Has(table)) return false;
  std::vector<std::string_view> names;
  for (size_t p = 0; p < columns.size();) {
    size_t e = std::min(columns.find(", ", p), columns.size());
    names.push_back(columns.substr(p, e - p));
    p = e + 2;
  }
  std::string missing = ColumnSet(db_, table).Missing(names);
  if (missing.empty()) return true;
  t_.problems.Add(model::ProblemKind::kRpdExtTableColumns,
                  std::string(table) + " lacks " + missing + "; ignored");
  return false;
}

base::Status RpdReader::ReadExtensions() {
  if (UsableExt(ext::kApiTable, ext::kApiColumns)) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                              db_.Query(Select(ext::kApiTable, ext::kApiColumns, "", true)));
    while (q.Step()) {
      ExtApi e;
      e.api = q.Int(0);
      e.kind = std::string(q.Text(1));
      if (!q.IsNull(2)) e.external_id = q.Int(2);
      if (!q.IsNull(3)) e.python_id = q.Int(3);
      if (!q.IsNull(4)) e.python_parent = q.Int(4);
      ext_api_.push_back(std::move(e));
    }
    GPUSCOPE_RETURN_IF_ERROR(q.status());
  }
  if (UsableExt(ext::kArgsTable, ext::kArgsColumns)) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                              db_.Query(Select(ext::kArgsTable, ext::kArgsColumns, "", true)));
    while (q.Step()) ext_args_.emplace_back(q.Int(0), std::string(q.Text(1)));
    GPUSCOPE_RETURN_IF_ERROR(q.status());
  }
  if (UsableExt(ext::kKernelTable, ext::kKernelColumns)) {
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q, db_.Query(Select(ext::kKernelTable, ext::kKernelColumns, ", NULL", true)));
    while (q.Step()) ext_kernel_.push_back(ReadLaunch(q));  // Launch::api holds the op id here
    GPUSCOPE_RETURN_IF_ERROR(q.status());
  }
  if (UsableExt(ext::kOpTable, ext::kOpColumns)) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query(Select(ext::kOpTable, ext::kOpColumns, "", true)));
    while (q.Step()) {
      ExtOp e;
      e.op = q.Int(0);
      model::ParseMemopKind(q.Text(1), &e.kind);
      e.src = model::ParseMemoryKind(q.Text(2));
      e.dst = model::ParseMemoryKind(q.Text(3));
      if (!q.IsNull(4)) e.bytes = q.Int(4);
      ext_op_.push_back(e);
    }
    GPUSCOPE_RETURN_IF_ERROR(q.status());
  }
  return base::Status::Ok();
}

void RpdReader::ApplyNameTags() {
  auto tagged = [&](std::string_view prefix, auto&& apply) {
    for (const auto& [tag, value] : t_.meta.properties) {
      if (tag.rfind(prefix, 0) == 0) apply(std::string_view(tag).substr(prefix.size()), value);
    }
  };
  tagged(ext::kTagDeviceName, [&](std::string_view id, const std::string& name) {
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
  tagged(ext::kTagDeviceVendor, [&](std::string_view id, const std::string& vendor) {
    for (model::Device& d : t_.devices) {
      if (std::to_string(d.id) != id) continue;
      d.vendor = vendor == model::VendorName(model::Vendor::kNvidia) ? model::Vendor::kNvidia
                 : vendor == model::VendorName(model::Vendor::kAmd)  ? model::Vendor::kAmd
                                                                     : model::Vendor::kUnknown;
    }
  });
  tagged(ext::kTagProcessName, [&](std::string_view pid, const std::string& name) {
    if (auto p = base::ParseInt64(pid)) t_.process_names[*p] = t_.strings.Intern(name);
  });
  tagged(ext::kTagThreadName, [&](std::string_view key, const std::string& name) {
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
  if (!UsableExt(ext::kGpuRangeTable, ext::kGpuRangeColumns)) return base::Status::Ok();
  ColumnSet have(db_, ext::kGpuRangeTable);
  const bool waits = have.Has("waits_on_record") && have.Has("waits_on_stream");
  std::string columns(ext::kGpuRangeColumns);
  if (waits) columns += ", " + std::string(ext::kGpuRangeWaitColumns);
  GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query(Select(ext::kGpuRangeTable, columns, "", false)));
  while (q.Step()) {
    model::GpuRangeRow row;
    row.start_ns = TimeAt(q, 2);
    row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 3));
    row.track = GpuTrack(q.Int(0), q.Int(1));
    if (!base::ValueNamed(ext::kGpuRangeKinds, q.Text(4), &row.kind))
      row.kind = model::GpuRangeKind::kOther;
    row.name = strings_.Get(q.Int(5));
    row.correlation = q.IsNull(6) ? model::kNoCorrelation : static_cast<uint64_t>(q.Int(6));
    if (waits && !q.IsNull(7) && !q.IsNull(8)) {
      row.waits_on_record = static_cast<uint64_t>(q.Int(7));
      row.waits_on_stream = q.Int(8);
    }
    t_.gpu_ranges.Append(row);
  }
  return q.status();
}

base::Status RpdReader::ReadExtMemory() {
  if (!UsableExt(ext::kMemoryTable, ext::kMemoryColumns)) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query(Select(ext::kMemoryTable, std::string(ext::kMemoryColumns), "", false)));
  while (q.Step()) {
    model::MemoryEventRow row;
    row.track = cpu_tracks_.Get(q.Int(0), q.Int(1));
    row.ts_ns = TimeAt(q, 2);
    row.device = static_cast<int16_t>(std::clamp<int64_t>(q.Int(3), -1, INT16_MAX));
    row.bytes = q.Int(4);
    row.allocated = q.IsNull(5) ? -1 : q.Int(5);
    row.reserved = q.IsNull(6) ? -1 : q.Int(6);
    row.addr = q.IsNull(7) ? 0 : static_cast<uint64_t>(q.Int(7));
    t_.memory.Append(row);
  }
  return q.status();
}

// Python frames packed per run of a thread's frames (format/rpd_python_frames.h). A row whose
// data breaks off keeps the frames before the break and is counted once.
base::Status RpdReader::ReadExtPython() {
  if (!UsableExt(ext::kPythonTable, ext::kPythonColumns)) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                            db_.Query(Select(ext::kPythonTable, ext::kPythonColumns, "", true)));
  while (q.Step()) {
    model::TrackId track = cpu_tracks_.Get(q.Int(1), q.Int(2));
    int64_t expected = q.Int(3), read = 0;
    format::rpd_python::Reader frames(q.Blob(4));
    format::rpd_python::Frame f;
    while (read < expected && frames.Next(&f)) {
      auto row = model::MakeSlice<model::PythonFrameRow>(f.start_ns, std::max<int64_t>(f.dur_ns, 0),
                                                         strings_.Get(f.name_id), track);
      row.python_id = f.python_id;
      row.python_parent_id = f.parent_id;
      t_.python.Append(row);
      ++read;
    }
    if (read != expected || frames.Next(&f)) {
      t_.problems.Add(model::ProblemKind::kRpdPythonFramesDamaged,
                      std::string(ext::kPythonTable) + " row " + std::to_string(q.Int(0)) +
                          " holds " + std::to_string(read) + " readable frames of the " +
                          std::to_string(expected) + " it declares; kept those");
    }
  }
  return q.status();
}

}  // namespace gpuscope::import::rpd
