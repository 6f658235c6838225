// WriteRocpd: the trace as a rocprofv3 rocpd database (output/profiler_db_writers.h). Process and
// thread ids are the OS ids (rocprofv3 keys rocpd_info_process/thread by them); each GPU stream
// is a queue and a stream of its device's agent.

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "base/varint.h"
#include "format/written_by.h"
#include "output/rocpd_schema.h"
#include "output/rocpd_writer_parts.h"

namespace gpuscope::output {
namespace rocpd_internal {
namespace {

std::string Replace(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

RocpdWriter::RocpdWriter(const model::Trace& t, base::SqliteDb& db)
    : t_(t), db_(db), layout_(LayoutTracks(t)) {
  // The run's UUID is derived from what was converted: the same input gives the same file.
  uint64_t a = base::Fnv1a(t.meta.path), b = base::Fnv1a(std::to_string(t.EventCount()), a);
  char text[40];
  std::snprintf(text, sizeof(text), "%08x-%04x-7%03x-8%03x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>(a >> 16) & 0xFFFF, static_cast<unsigned>(a) & 0xFFF,
                static_cast<unsigned>(b >> 52) & 0xFFF,
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  guid_ = text;
  uuid_.push_back('_');  // in steps: GCC 12 misreads "_" + string at -O3 (-Wrestrict)
  uuid_ += Replace(guid_, "-", "_");
}

int64_t RocpdWriter::PidOf(model::RowId launch) const {
  if (launch == model::kNoRow || launch >= t_.api.size()) return main_pid_;
  return layout_.tracks[t_.api.track[launch]].pid;
}

int64_t RocpdWriter::AgentOf(model::TrackId track) const { return DeviceIdOf(t_, layout_, track); }

base::StatusOr<LossyWriteCounts> RocpdWriter::Write() {
  GPUSCOPE_RETURN_IF_ERROR(
      db_.Exec("PRAGMA page_size=65536; PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF; "
               "PRAGMA synchronous=OFF; BEGIN;"));
  GPUSCOPE_RETURN_IF_ERROR(
      db_.Exec(Replace(Replace(kRocpdSchema, "{uuid}", uuid_), "{guid}", guid_)));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto ins, db_.Query("INSERT INTO " + Table("rocpd_string") + "(id, string) VALUES (?1, ?2)"));
  strings_.emplace(t_, std::move(ins));
  GPUSCOPE_ASSIGN_OR_RETURN(auto events,
                            SqliteBatchInsert::Create(db_, Table("rocpd_event"),
                                                      "id, category_id, stack_id, parent_stack_id, "
                                                      "correlation_id, extdata"));
  events_.emplace(std::move(events));
  GPUSCOPE_RETURN_IF_ERROR(WriteMetadata());
  GPUSCOPE_RETURN_IF_ERROR(WriteProcessesAndThreads());
  GPUSCOPE_RETURN_IF_ERROR(WriteAgentsAndQueues());
  GPUSCOPE_RETURN_IF_ERROR(WriteKernelSymbols());
  GPUSCOPE_RETURN_IF_ERROR(WriteApi());
  GPUSCOPE_RETURN_IF_ERROR(WriteKernels());
  GPUSCOPE_RETURN_IF_ERROR(WriteCopies());
  GPUSCOPE_RETURN_IF_ERROR(WriteMarkers());
  GPUSCOPE_RETURN_IF_ERROR(WriteSamples());
  GPUSCOPE_RETURN_IF_ERROR(events_->Flush());
  profiler_db::CountCommonDrops(t_, counts_);
  profiler_db::Dropped(counts_, "recorded stream waits", profiler_db::RecordedStreamWaits(t_));
  uint64_t syncs = 0;
  for (auto k : t_.gpu_ranges.kind) syncs += k == model::GpuRangeKind::kSync;
  profiler_db::Dropped(counts_, "sync records", syncs);
  GPUSCOPE_RETURN_IF_ERROR(db_.Exec("COMMIT;"));
  return counts_;
}

base::Status RocpdWriter::WriteMetadata() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("INSERT INTO " + Table("rocpd_metadata") + "(tag, value) VALUES (?1, ?2)"));
  const std::pair<std::string_view, std::string_view> rows[] = {
      {"schema_version", "3"},
      {"uuid", uuid_},
      {"guid", guid_},
      {"gpuscope_source", t_.meta.path},
      {"gpuscope_source_format", t_.meta.format},
      {"gpuscope_source_producer", t_.meta.producer},
      {"gpuscope_written_by", format::ExportedBy(t_.meta.properties)}};
  for (auto [tag, value] : rows) {
    q.Bind(1, tag);
    q.Bind(2, value);
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  return db_.Exec("INSERT INTO " + Table("rocpd_info_node") +
                  "(id, hash, machine_id, system_name) VALUES (1, 1, 'gpuscope-convert', '')");
}

base::Status RocpdWriter::WriteProcessesAndThreads() {
  GPUSCOPE_ASSIGN_OR_RETURN(auto proc, db_.Query("INSERT INTO " + Table("rocpd_info_process") +
                                                 "(id, nid, pid, command) VALUES (?1, 1, ?1, ?2)"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto thread, db_.Query("INSERT INTO " + Table("rocpd_info_thread") +
                             "(id, nid, ppid, pid, tid, name) VALUES (?1, 1, ?2, ?2, ?1, ?3)"));
  std::set<int64_t> pids, tids;
  for (size_t i = 0; i < t_.tracks.size(); ++i) {
    const model::Track& tr = t_.tracks[i];
    if (tr.kind != model::TrackKind::kCpuThread) continue;
    const TrackView& v = layout_.tracks[i];
    if (pids.insert(v.pid).second) {
      auto name = t_.process_names.find(tr.pid);
      proc.Bind(1, v.pid);
      if (name != t_.process_names.end())
        proc.Bind(2, t_.str(name->second));
      else
        proc.BindNull(2);
      GPUSCOPE_RETURN_IF_ERROR(proc.Run());
    }
    if (!tids.insert(v.tid).second) continue;  // a thread row per OS thread id
    thread.Bind(1, v.tid);
    thread.Bind(2, v.pid);
    if (t_.str(tr.name).empty())
      thread.BindNull(3);
    else
      thread.Bind(3, t_.str(tr.name));
    GPUSCOPE_RETURN_IF_ERROR(thread.Run());
  }
  main_pid_ = profiler_db::MainPid(t_, layout_);
  return base::Status::Ok();
}

base::Status RocpdWriter::WriteAgentsAndQueues() {
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto agent, db_.Query("INSERT INTO " + Table("rocpd_info_agent") +
                            "(id, nid, pid, type, absolute_index, logical_index, type_index, "
                            "name, vendor_name, product_name, extdata) VALUES (?1, 1, ?2, 'GPU', "
                            "?1, ?1, ?1, '', ?3, ?4, ?5)"));
  std::set<int32_t> agents;
  for (const model::Device& d : t_.devices) {
    if (!agents.insert(d.id).second) continue;  // one agent per device id
    agent.Bind(1, int64_t{d.id});
    agent.Bind(2, main_pid_);
    agent.Bind(3, d.vendor == model::Vendor::kAmd      ? std::string_view("AMD")
                  : d.vendor == model::Vendor::kNvidia ? std::string_view("NVIDIA")
                                                       : std::string_view());
    agent.Bind(4, d.name);
    agent.Bind(5, "{\"cu_count\":" + std::to_string(d.compute_units) +
                      ",\"wave_front_size\":" + std::to_string(d.warp_size) +
                      ",\"mem_banks\":[{\"size_in_bytes\":" + std::to_string(d.total_memory) +
                      "}]}");
    GPUSCOPE_RETURN_IF_ERROR(agent.Run());
  }
  // A queue (and a stream of the same id) per GPU track: the stream's own number where no other
  // device uses it, else the next free one.
  queue_of_.assign(t_.tracks.size(), 0);
  std::map<int64_t, int> uses;
  for (size_t i = 0; i < t_.tracks.size(); ++i)
    if (t_.tracks[i].kind == model::TrackKind::kGpuStream) ++uses[layout_.tracks[i].tid];
  int64_t next = uses.empty() ? 1 : std::max<int64_t>(uses.rbegin()->first, 0) + 1;
  for (const char* table : {"rocpd_info_queue", "rocpd_info_stream"}) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query("INSERT INTO " + Table(table) +
                                                "(id, nid, pid, name) VALUES (?1, 1, ?2, ?3)"));
    for (size_t i = 0; i < t_.tracks.size(); ++i) {
      if (t_.tracks[i].kind != model::TrackKind::kGpuStream) continue;
      int64_t tid = layout_.tracks[i].tid;
      if (queue_of_[i] == 0) queue_of_[i] = tid >= 0 && uses[tid] == 1 ? tid : next++;
      q.Bind(1, queue_of_[i]);
      q.Bind(2, main_pid_);
      q.Bind(3, "stream " + std::to_string(tid));
      GPUSCOPE_RETURN_IF_ERROR(q.Run());
    }
  }
  return base::Status::Ok();
}

base::Status RocpdWriter::WriteKernelSymbols() {
  GPUSCOPE_RETURN_IF_ERROR(db_.Exec("INSERT INTO " + Table("rocpd_info_code_object") +
                                    "(id, nid, pid, uri, storage_type) VALUES (1, 1, " +
                                    std::to_string(main_pid_) + ", '', 'MEMORY')"));
  GPUSCOPE_ASSIGN_OR_RETURN(
      auto q, db_.Query("INSERT INTO " + Table("rocpd_info_kernel_symbol") +
                        "(id, nid, pid, code_object_id, kernel_name, display_name, "
                        "group_segment_size, arch_vgpr_count) VALUES (?1, 1, ?2, 1, ?3, ?4, ?5, "
                        "?6)"));
  const auto& k = t_.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    auto [it, added] = symbol_.emplace(k.name[i], static_cast<int64_t>(symbol_.size()) + 1);
    if (!added) continue;
    std::string_view name = t_.str(k.name[i]);
    q.Bind(1, it->second);
    q.Bind(2, main_pid_);
    q.Bind(3, std::string(name) + ".kd");  // the code object's symbol: the kernel descriptor
    q.Bind(4, name);
    q.Bind(5, int64_t{k.shared_mem[i]});
    q.Bind(6, int64_t{k.registers[i]});
    GPUSCOPE_RETURN_IF_ERROR(q.Run());
  }
  return base::Status::Ok();
}

}  // namespace rocpd_internal

base::StatusOr<LossyWriteCounts> WriteRocpd(const model::Trace& trace, const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, base::SqliteDb::Create(path));
  rocpd_internal::RocpdWriter writer(trace, db);
  auto counts = writer.Write();
  if (!counts.ok()) {
    return base::Status::Error(path +
                               ": writing the rocpd database failed: " + counts.status().message());
  }
  return counts;
}

}  // namespace gpuscope::output
