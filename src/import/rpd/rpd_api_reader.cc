// API calls, the autograd ops a post-processor names, and rocpd_monitor counters.

#include "base/enum_names.h"
#include "base/numbers.h"
#include "format/rpd_ext.h"
#include "import/common/rocm_names.h"
#include "import/rpd/rpd_reader.h"
#include "model/op_args.h"

namespace gpuscope::import::rpd {

using base::SqliteDb;
using model::Trace;
using namespace rocm;  // the ROCm name classifiers (ClassifyOp, CopyDirection, ...)
namespace rpd_ext = format::rpd_ext;

base::Status RpdReader::ReadApi() {
  if (!db_.Has("rocpd_api")) {
    t_.meta.not_collected.push_back("API calls (no rocpd_api table)");
    return base::Status::Ok();
  }
  ColumnSet c(db_, "rocpd_api");
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("SELECT " +
                        c.Select({"id", "pid", "tid", "start", "end", "apiName_id", "args_id"}) +
                        " FROM rocpd_api"));
  std::unordered_map<model::StringId, int> kind;  // 0 call, 1 marker, 2 overhead
  want_api_index_ = db_.Has("ext_autogradapi");
  model::StringId marker = t_.strings.Intern("UserMarker");
  while (q.Step()) {
    model::StringId name = strings_.Get(q.Int(5));
    auto [it, inserted] = kind.emplace(name, 0);
    if (inserted) it->second = name == marker ? 1 : IsRpdOverheadApi(t_.str(name)) ? 2 : 0;
    int64_t start = TimeAt(q, 3);
    int64_t dur = model::DurationBetween(start, TimeAt(q, 4));
    model::TrackId track = cpu_tracks_.Get(q.Int(1), q.Int(2));
    auto ext = ext_api_.empty() ? ext_api_.end() : FindSorted(ext_api_, q.Int(0));
    if (it->second == 2 && ext == ext_api_.end()) {  // gpuscope's export marks real calls
      ++t_.record_counts["rpd tracer overhead rows (left out)"];
      t_.meta.AddOverhead(dur);
      continue;
    }
    if (it->second == 1) {
      model::StringId text = q.IsNull(6) ? t_.strings.Intern("") : Arg(q.Int(6));
      model::CpuRangeKind range_kind = model::CpuRangeKind::kOp;
      if (ext != ext_api_.end() && ext->kind == rpd_ext::kPythonFrameKind) {
        auto row = model::MakeSlice<model::PythonFrameRow>(start, dur, text, track);
        row.python_id = ext->python_id;
        row.python_parent_id = ext->python_parent;
        t_.python.Append(row);
      } else if (ext != ext_api_.end() &&
                 base::ValueNamed(rpd_ext::kCpuRangeKinds, ext->kind, &range_kind)) {
        auto row = model::MakeSlice<model::CpuRangeRow>(start, dur, text, track);
        row.external_id = static_cast<uint64_t>(ext->external_id);
        row.kind = range_kind;
        auto args = ext_args_.empty() ? ext_args_.end() : FindSorted(ext_args_, q.Int(0));
        if (args != ext_args_.end()) row.args = t_.strings.Intern(args->second);
        t_.cpu.Append(row);
      } else if (dur == 0) {
        t_.instants.Append(start, text, track);  // roctxMark
      } else {
        auto row = model::MakeSlice<model::CpuRangeRow>(start, dur, text, track);
        row.kind = model::CpuRangeKind::kAnnotation;
        t_.cpu.Append(row);
      }
      continue;
    }
    auto row = model::MakeSlice<model::ApiRow>(start, dur, name, track);
    row.correlation = static_cast<uint64_t>(q.Int(0));
    row.domain = ApiDomainOf(t_.str(name));
    if (ext != ext_api_.end()) model::ParseApiDomain(ext->kind, &row.domain);
    if (want_api_index_) api_index_.emplace(q.Int(0), static_cast<uint32_t>(t_.api.size()));
    t_.api.Append(row);
  }
  return q.status();
}

base::Status RpdReader::ReadAutograd() {
  if (!db_.Has("ext_autogradapi")) return base::Status::Ok();
  ColumnSet c(db_, "ext_autogradapi");
  if (!c.Has("api_ptr_id") || !c.Has("autogradName_id")) {
    t_.problems.Add(model::ProblemKind::kRpdExtAutogradapiColumns,
                    "ext_autogradapi lacks api_ptr_id/autogradName_id; ignored");
    return base::Status::Ok();
  }
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT " + c.Select({"api_ptr_id", "autogradName_id", "op_id", "seq", "sizes"}) +
                " FROM ext_autogradapi"));
  struct Span {
    int64_t start, end;
    model::StringId name;
    model::TrackId track;
    model::StringId args = 0;  // the inputs' sizes (rocpd.autograd records no types)
  };
  std::map<std::pair<int64_t, int64_t>, Span> ops;  // (op id or seq, name id) -> span
  while (q.Step()) {
    auto it = api_index_.find(q.Int(0));
    if (it == api_index_.end()) continue;
    size_t i = it->second;
    if (!model::TimesUsable(t_.api.start_ns[i], t_.api.dur_ns[i])) continue;  // dropped later
    int64_t op = q.IsNull(2) ? q.Int(3) : q.Int(2);
    auto key = std::make_pair(op, q.Int(1));
    auto [s, inserted] =
        ops.emplace(key, Span{t_.api.start_ns[i], t_.api.end_ns(i), 0, t_.api.track[i]});
    if (inserted) {
      s->second.name = strings_.Get(q.Int(1));
      std::string_view sizes = q.IsNull(4) ? std::string_view() : q.Text(4);
      if (sizes.size() > 2 && sizes.front() == '[')
        s->second.args = t_.strings.Intern(model::EncodeOpArgs(sizes, "", ""));
    }
    s->second.start = std::min(s->second.start, t_.api.start_ns[i]);
    s->second.end = std::max(s->second.end, t_.api.end_ns(i));
  }
  for (const auto& [key, s] : ops) {
    auto row = model::MakeSlice<model::CpuRangeRow>(s.start, model::DurationBetween(s.start, s.end),
                                                    s.name, s.track);
    row.kind = model::CpuRangeKind::kOp;
    row.args = s.args;
    t_.cpu.Append(row);
  }
  if (!ops.empty()) t_.record_counts["autograd ops (spans of their API calls)"] = ops.size();
  return q.status();
}

base::Status RpdReader::ReadMonitor() {
  if (!db_.Has("rocpd_monitor")) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q,
      db_.Query("SELECT deviceType, deviceId, monitorType, start, value FROM rocpd_monitor"));
  std::map<std::tuple<std::string, int64_t, std::string>,
           std::pair<model::StringId, model::TrackId>>
      series;
  while (q.Step()) {
    auto key = std::make_tuple(std::string(q.Text(0)), q.Int(1), std::string(q.Text(2)));
    auto it = series.find(key);
    if (it == series.end()) {
      std::string device = std::get<0>(key) + std::to_string(std::get<1>(key));
      model::TrackId track = t_.InternTrack(model::TrackKind::kOther, "monitor", device);
      it = series
               .emplace(key,
                        std::make_pair(t_.strings.Intern(device + " " + std::get<2>(key)), track))
               .first;
    }
    auto v = base::ParseDouble(q.Text(4));
    if (!v) {
      t_.problems.Add(model::ProblemKind::kRpdBadMonitorValue,
                      "rocpd_monitor value '" + std::string(q.Text(4)) + "' is not a number");
      continue;
    }
    t_.counters.Append(TimeAt(q, 3), *v, it->second.first, it->second.second);
  }
  return q.status();
}

}  // namespace gpuscope::import::rpd
