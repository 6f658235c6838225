// Host-side ranges: NVTX (emit_nvtx ops, annotations, marks) and OS runtime calls.

#include "import/nsys/nsys_reader.h"

namespace gpuscope::import::nsys {

base::Status NsysReader::ReadNvtx() {
  auto c = OpenTable("NVTX_EVENTS", "NVTX ranges", {"start", "eventType"});
  if (!c) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("SELECT " +
                        c->Select({"start", "end", "eventType", "globalTid", "textId", "text"}) +
                        " FROM NVTX_EVENTS"));
  while (q.Step()) {
    std::string_view type = event_type_.Name(q.Int(2));
    std::string_view text = !q.IsNull(4) ? strings_.Text(q.Int(4)) : q.Text(5);
    bool range = type == "NvtxPushPopRange" || type == "NvtxStartEndRange" ||
                 type == "NvtxtPushPopRange" || type == "NvtxtStartEndRange";
    bool mark = type == "NvtxMark" || type == "NvtxtMark";
    if (range && !q.IsNull(1)) {
      model::CpuRangeRow row;
      row.start_ns = TimeAt(q, 0);
      row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
      row.track = CpuTrack(q.Int(3));
      NameRangeByText(t_, text, &row);
      t_.cpu.Append(row);
    } else if (mark || (range && q.IsNull(1))) {
      t_.instants.Append(TimeAt(q, 0), t_.strings.Intern(text), CpuTrack(q.Int(3)));
    } else if (type.empty()) {
      // An eventType that ENUM_NSYS_EVENT_TYPE does not define: a damaged row, not a kind.
      t_.problems.Add(model::ProblemKind::kNsysUnknownNvtxType,
                      "NVTX_EVENTS row with eventType " + std::string(q.Text(2)) +
                          ", which ENUM_NSYS_EVENT_TYPE does not define; skipped");
    } else {
      ++t_.record_counts["NVTX " + std::string(type) + " records"];
    }
  }
  return Finish(q);
}

base::Status NsysReader::ReadOsRuntime() {
  auto c = OpenTable("OSRT_API", {}, {"start", "end", "globalTid", "nameId"});
  if (!c) return base::Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                            db_.Query("SELECT start, end, globalTid, nameId FROM OSRT_API"));
  while (q.Step()) {
    model::ApiRow row;
    row.start_ns = TimeAt(q, 0);
    row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
    row.track = CpuTrack(q.Int(2));
    row.name = strings_.Get(q.Int(3));
    row.domain = model::ApiDomain::kOs;
    t_.api.Append(row);
  }
  return Finish(q);
}

}  // namespace gpuscope::import::nsys
