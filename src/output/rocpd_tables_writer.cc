// The events of the rocpd database: API calls as regions, kernel dispatches, memory copies, CPU
// ops and annotations as roctx ranges (regions of the marker category, the text in the event's
// extdata message), instants as marker samples. Each has its rocpd_event row; the event's
// stack_id is the correlation id that links a launch to its GPU work.

#include <algorithm>

#include "base/enum_names.h"
#include "output/rocpd_writer_parts.h"

namespace gpuscope::output::rocpd_internal {

namespace {

// rocprofv3's names of copy operations (rocpd_memory_copy.name_id).
std::string_view CopyName(model::MemopKind k) {
  static constexpr std::string_view kNames[] = {"MEMORY_COPY_HOST_TO_DEVICE",
                                                "MEMORY_COPY_DEVICE_TO_HOST",
                                                "MEMORY_COPY_DEVICE_TO_DEVICE",
                                                "MEMORY_COPY_HOST_TO_HOST",
                                                "MEMORY_COPY_DEVICE_TO_DEVICE",
                                                "MEMORY_COPY_NONE",
                                                "MEMORY_COPY_NONE"};
  static_assert(base::NamesEvery(kNames, model::MemopKind::kOther));
  return base::NameOf(kNames, k, "MEMORY_COPY_NONE");
}

// One rocpd_region row: (nid, pid, tid, start, end, name_id, event_id).
base::Status Region(SqliteBatchInsert& q, const TrackView& v, int64_t start, int64_t dur,
                    int64_t name, int64_t event) {
  q.Bind(1, kNode);
  q.Bind(2, v.pid);
  q.Bind(3, v.tid);
  q.Bind(4, start);
  q.Bind(5, start + dur);
  q.Bind(6, name);
  q.Bind(7, event);
  return q.Run();
}

std::string Message(std::string_view text) {
  return "{\"message\":" + profiler_db::JsonString(text) + "}";
}

}  // namespace

base::StatusOr<int64_t> RocpdWriter::Event(std::string_view category, uint64_t correlation,
                                           std::string_view extdata) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto cat, strings_->Of(category));
  int64_t id = next_event_++;
  events_->Bind(1, id);
  events_->Bind(2, cat);
  profiler_db::BindCorrelation(*events_, 3, correlation);
  events_->Bind(4, int64_t{0});
  events_->Bind(5, int64_t{0});
  events_->Bind(6, extdata.empty() ? std::string_view("{}") : extdata);
  GPUSCOPE_RETURN_IF_ERROR(events_->Run());
  return id;
}

base::Status RocpdWriter::WriteApi() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(db_, Table("rocpd_region"),
                                        "nid, pid, tid, start, end, name_id, event_id"));
  const auto& a = t_.api;
  uint64_t os_calls = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.domain[i] == model::ApiDomain::kOs) {
      ++os_calls;  // rocprofv3 traces no OS calls
      continue;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(a.name[i]));
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto event, Event(a.domain[i] == model::ApiDomain::kHsa ? kHsaCategory : kHipCategory,
                          a.correlation[i], {}));
    GPUSCOPE_RETURN_IF_ERROR(
        Region(q, layout_.tracks[a.track[i]], a.start_ns[i], a.dur_ns[i], name, event));
    ++counts_.api;
  }
  profiler_db::Dropped(counts_, "OS runtime calls", os_calls);
  return q.Flush();
}

base::Status RocpdWriter::WriteKernels() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(
                  db_, Table("rocpd_kernel_dispatch"),
                  "nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, "
                  "end, private_segment_size, group_segment_size, workgroup_size_x, "
                  "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, "
                  "event_id"));
  const auto& k = t_.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto event, Event(kKernelCategory, k.correlation[i], {}));
    model::RowId launch = k.launch[i];
    q.Bind(1, kNode);
    q.Bind(2, PidOf(launch));
    if (launch != model::kNoRow && launch < t_.api.size())
      q.Bind(3, layout_.tracks[t_.api.track[launch]].tid);
    else
      q.BindNull(3);
    q.Bind(4, k.device[i] >= 0 ? int64_t{k.device[i]} : AgentOf(k.track[i]));
    q.Bind(5, symbol_.at(k.name[i]));
    q.Bind(6, static_cast<int64_t>(i) + 1);
    q.Bind(7, queue_of_[k.track[i]]);
    q.Bind(8, queue_of_[k.track[i]]);
    q.Bind(9, k.start_ns[i]);
    q.Bind(10, k.start_ns[i] + k.dur_ns[i]);
    q.Bind(11, int64_t{0});
    q.Bind(12, int64_t{k.shared_mem[i]});
    for (int d = 0; d < 3; ++d) {
      q.Bind(13 + d, int64_t{k.block[i][d]});
      q.Bind(16 + d, int64_t{k.grid[i][d]});
    }
    q.Bind(19, event);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.gpu_ops;
  }
  return q.Flush();
}

base::Status RocpdWriter::WriteCopies() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(db_, Table("rocpd_memory_copy"),
                                        "nid, pid, start, end, name_id, dst_agent_id, "
                                        "src_agent_id, size, queue_id, stream_id, event_id"));
  const auto& m = t_.memops;
  uint64_t fills = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.kind[i] == model::MemopKind::kMemset) {
      ++fills;  // rocpd has no fill records (on ROCm a fill is a kernel)
      continue;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto name, strings_->Of(CopyName(m.kind[i])));
    GPUSCOPE_ASSIGN_OR_RETURN(auto event, Event(kCopyCategory, m.correlation[i], {}));
    int64_t agent = m.device[i] >= 0 ? int64_t{m.device[i]} : AgentOf(m.track[i]);
    bool to_host = m.kind[i] == model::MemopKind::kDtoH;
    bool from_host = m.kind[i] == model::MemopKind::kHtoD || m.kind[i] == model::MemopKind::kHtoH;
    q.Bind(1, kNode);
    q.Bind(2, PidOf(m.launch[i]));
    q.Bind(3, m.start_ns[i]);
    q.Bind(4, m.start_ns[i] + m.dur_ns[i]);
    q.Bind(5, name);
    // The GPU end is the agent the importer puts the copy on; the host end has no GPU agent.
    if (to_host)
      q.BindNull(6);
    else
      q.Bind(6, agent);
    if (from_host)
      q.BindNull(7);
    else
      q.Bind(7, agent);
    q.Bind(8, std::max<int64_t>(m.bytes[i], 0));
    q.Bind(9, queue_of_[m.track[i]]);
    q.Bind(10, queue_of_[m.track[i]]);
    q.Bind(11, event);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.gpu_ops;
  }
  profiler_db::Dropped(counts_, "memsets", fills);
  return q.Flush();
}

base::Status RocpdWriter::WriteMarkers() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, SqliteBatchInsert::Create(db_, Table("rocpd_region"),
                                        "nid, pid, tid, start, end, name_id, event_id"));
  GPUSCOPE_ASSIGN_OR_RETURN(auto push, strings_->Of(kRangePush));
  const auto& c = t_.cpu;
  for (size_t i = 0; i < c.size(); ++i) {
    std::string text = c.kind[i] == model::CpuRangeKind::kOp ? profiler_db::OpRangeText(t_, i)
                                                             : std::string(t_.str(c.name[i]));
    GPUSCOPE_ASSIGN_OR_RETURN(auto event,
                              Event(kMarkerCategory, model::kNoCorrelation, Message(text)));
    GPUSCOPE_RETURN_IF_ERROR(
        Region(q, layout_.tracks[c.track[i]], c.start_ns[i], c.dur_ns[i], push, event));
    ++counts_.host_ranges;
  }
  return q.Flush();
}

// Instants on host threads: marker samples on the thread's track (rocprofv3's roctxMarkA).
base::Status RocpdWriter::WriteSamples() {
  GPUSCOPE_ASSIGN_OR_RETURN(auto track, db_.Query("INSERT INTO " + Table("rocpd_track") +
                                                  "(id, nid, pid, tid) VALUES (?1, 1, ?2, ?3)"));
  GPUSCOPE_ASSIGN_OR_RETURN(auto q, SqliteBatchInsert::Create(db_, Table("rocpd_sample"),
                                                              "track_id, timestamp, event_id"));
  std::map<model::TrackId, int64_t> tracks;
  const auto& m = t_.instants;
  uint64_t gpu_marks = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (t_.tracks[m.track[i]].kind != model::TrackKind::kCpuThread) {
      ++gpu_marks;  // roctx marks are the host's
      continue;
    }
    auto [it, added] = tracks.emplace(m.track[i], static_cast<int64_t>(tracks.size()) + 1);
    if (added) {
      const TrackView& v = layout_.tracks[m.track[i]];
      track.Bind(1, it->second);
      track.Bind(2, v.pid);
      track.Bind(3, v.tid);
      GPUSCOPE_RETURN_IF_ERROR(track.Run());
    }
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto event, Event(kMarkerCategory, model::kNoCorrelation, Message(t_.str(m.name[i]))));
    q.Bind(1, it->second);
    q.Bind(2, m.ts_ns[i]);
    q.Bind(3, event);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
    ++counts_.host_ranges;
  }
  profiler_db::Dropped(counts_, "instants on GPU tracks", gpu_marks);
  return q.Flush();
}

}  // namespace gpuscope::output::rocpd_internal
