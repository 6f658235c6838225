// The export's metadata, devices, processes and threads, and the tracks events land on.

#include "import/nsys/nsys_reader.h"

#include "format/written_by.h"

namespace gpuscope::import::nsys {

base::Status NsysReader::Read() {
  ReadMetadata();
  memcpy_oper_ = LoadEnum(db_, "ENUM_CUDA_MEMCPY_OPER");
  mem_kind_ = LoadEnum(db_, "ENUM_CUDA_MEM_KIND");
  event_class_ = LoadEnum(db_, "ENUM_NSYS_EVENT_CLASS");
  sync_type_ = LoadEnum(db_, "ENUM_CUPTI_SYNC_TYPE");
  event_type_ = LoadEnum(db_, "ENUM_NSYS_EVENT_TYPE");
  // Older exports lack these tables; their values are the public enumerations' (nsys_schema.h).
  if (!memcpy_oper_.present && db_.Has("CUPTI_ACTIVITY_KIND_MEMCPY")) {
    memcpy_oper_ = BuiltinMemcpyKinds();
    t_.problems.Add(model::ProblemKind::kNsysBuiltinEnum,
                    "ENUM_CUDA_MEMCPY_OPER is missing (an older export): copy directions read "
                    "with CUPTI's CUpti_ActivityMemcpyKind numbers");
  }
  if (!event_type_.present && db_.Has("NVTX_EVENTS")) {
    event_type_ = BuiltinNvtxEventTypes();
    t_.problems.Add(model::ProblemKind::kNsysBuiltinEnum,
                    "ENUM_NSYS_EVENT_TYPE is missing (an older export): NVTX event types read "
                    "with nsys's published numbers (34 mark, 59 push/pop, 60 start/end range)");
  }
  ReadDevices();
  ReadProcessesAndThreads();
  multi_process_ = CountCudaProcesses() > 1;
  GPUSCOPE_RETURN_IF_ERROR(ReadRuntime());
  GPUSCOPE_RETURN_IF_ERROR(ReadKernels());
  GPUSCOPE_RETURN_IF_ERROR(ReadMemcpy());
  GPUSCOPE_RETURN_IF_ERROR(ReadMemset());
  GPUSCOPE_RETURN_IF_ERROR(ReadSync());
  GPUSCOPE_RETURN_IF_ERROR(ReadMemoryUsage());
  GPUSCOPE_RETURN_IF_ERROR(ReadNvtx());
  GPUSCOPE_RETURN_IF_ERROR(ReadOsRuntime());
  CountOtherRecords();
  ReadDiagnostics();
  return base::Status::Ok();
}

std::optional<ColumnSet> NsysReader::OpenTable(std::string_view table, std::string_view what,
                                               std::initializer_list<std::string_view> required) {
  if (!db_.Has(table)) {
    if (!what.empty())
      t_.meta.not_collected.push_back(std::string(what) + " (no " + std::string(table) + " table)");
    return std::nullopt;
  }
  ColumnSet c(db_, table);
  std::string missing = c.Missing(required);
  if (missing.empty()) return c;
  t_.problems.Add(model::ProblemKind::kNsysTableMissingColumns,
                  std::string(table) + " lacks column(s) " + missing + "; the table was skipped");
  return std::nullopt;
}

void NsysReader::ReadMetadata() {
  t_.meta.clock = "nsys session timeline (ns since the session start)";
  if (db_.Has("META_DATA_EXPORT")) {
    if (auto q = db_.Query("SELECT name, value FROM META_DATA_EXPORT"); q.ok()) {
      while (q->Step()) t_.meta.properties[std::string(q->Text(0))] = std::string(q->Text(1));
    }
  }
  auto prop = [&](const char* k) {
    auto it = t_.meta.properties.find(k);
    return it == t_.meta.properties.end() ? std::string() : it->second;
  };
  std::string schema = prop("EXPORT_SCHEMA_VERSION");
  t_.meta.format_version =
      schema.empty() ? "export schema unknown (no META_DATA_EXPORT)" : "export schema " + schema;
  std::string product = prop("EXPORT_PRODUCT_NAME");
  t_.meta.producer = product.empty() ? "Nsight Systems" : product;
  // Appended in steps: GCC 12 misreads " " + string at -O3 (-Wrestrict).
  if (std::string version = prop("EXPORT_PRODUCT_VERSION"); !version.empty())
    t_.meta.producer.append(" ").append(version);
  // Written by gpuscope's export (convert, run): say so, and what recorded the events.
  if (std::string source = prop("GPUSCOPE_SOURCE_FORMAT"); !source.empty()) {
    t_.meta.producer = format::WrittenByLabel(product, prop("GPUSCOPE_SOURCE_PRODUCER"), source,
                                              prop("EXPORT_PARAM_INPUT_FILE"));
  }
  if (db_.Has("TARGET_INFO_SESSION_START_TIME")) {
    t_.meta.base_time_ns =
        db_.QueryInt("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", 0);
  }
}

void NsysReader::ReadDevices() {
  if (!db_.Has("TARGET_INFO_GPU")) return;
  ColumnSet c(db_, "TARGET_INFO_GPU");
  auto q = db_.Query("SELECT " +
                     c.Select({"id", "name", "totalMemory", "smCount", "threadsPerWarp",
                               "computeMajor", "computeMinor"}) +
                     " FROM TARGET_INFO_GPU ORDER BY id");
  if (!q.ok()) return;
  while (q->Step()) {
    model::Device d;
    d.id = static_cast<int32_t>(q->Int(0));
    d.name = std::string(q->Text(1));
    d.vendor = model::Vendor::kNvidia;
    d.total_memory = q->Int(2);
    d.compute_units = static_cast<int32_t>(q->Int(3));
    d.warp_size = static_cast<int32_t>(q->Int(4));
    if (!q->IsNull(5)) d.compute_major = static_cast<int32_t>(q->Int(5));
    if (!q->IsNull(6)) d.compute_minor = static_cast<int32_t>(q->Int(6));
    t_.devices.push_back(std::move(d));
  }
}

void NsysReader::ReadProcessesAndThreads() {
  if (db_.Has("PROCESSES")) {
    if (auto q = db_.Query("SELECT pid, name FROM PROCESSES"); q.ok()) {
      while (q->Step()) {
        if (!q->IsNull(1)) t_.process_names[q->Int(0)] = t_.strings.Intern(q->Text(1));
      }
    }
  }
  if (db_.Has("ThreadNames")) {
    if (auto q = db_.Query("SELECT globalTid, nameId FROM ThreadNames"); q.ok()) {
      while (q->Step()) thread_names_[q->Int(0)] = q->Int(1);
    }
  }
}

int64_t NsysReader::CountCudaProcesses() {
  std::set<int64_t> keys;
  for (auto [table, col] : {std::pair{"CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"},
                            std::pair{"CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"}}) {
    if (!db_.Has(table)) continue;
    auto q = db_.Query(std::string("SELECT DISTINCT ") + col + " >> 24 FROM " + table);
    if (!q.ok()) continue;
    while (q->Step()) keys.insert(q->Int(0));
  }
  return static_cast<int64_t>(keys.size());
}

uint64_t NsysReader::Correlation(int64_t corr, int64_t global) const {
  if (!multi_process_) return static_cast<uint64_t>(corr);
  return (static_cast<uint64_t>(PidOf(global)) << 40) |
         (static_cast<uint64_t>(corr) & 0xFFFFFFFFFFull);
}

model::TrackId NsysReader::CpuTrack(int64_t global_tid) {
  auto it = cpu_tracks_.find(global_tid);
  if (it != cpu_tracks_.end()) return it->second;
  model::TrackId id =
      t_.InternTrack(model::TrackKind::kCpuThread, std::to_string(PidOf(global_tid)),
                     std::to_string(TidOf(global_tid)));
  auto name = thread_names_.find(global_tid);
  if (name != thread_names_.end()) t_.tracks[id].name = strings_.Get(name->second);
  cpu_tracks_.emplace(global_tid, id);
  return id;
}

model::TrackId NsysReader::GpuTrack(int64_t device, int64_t stream, int64_t global_pid) {
  auto key = std::make_tuple(device, stream, multi_process_ ? ProcessKey(global_pid) : 0);
  auto it = gpu_tracks_.find(key);
  if (it != gpu_tracks_.end()) return it->second;
  std::string tid = std::to_string(stream);
  if (multi_process_) tid += " (pid " + std::to_string(PidOf(global_pid)) + ")";
  model::TrackId id = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(device), tid);
  t_.tracks[id].tid = stream;
  t_.tracks[id].device = static_cast<int32_t>(device);
  gpu_tracks_.emplace(key, id);
  return id;
}

void NsysReader::CountOtherRecords() {
  for (auto [table, label] :
       {std::pair{"PROFILER_OVERHEAD", "nsys profiler overhead ranges"},
        std::pair{"SCHED_EVENTS", "thread scheduling events"},
        std::pair{"COMPOSITE_EVENTS", "CPU sampling events"},
        std::pair{"GPU_METRICS", "GPU metrics samples"},
        std::pair{"CUPTI_ACTIVITY_KIND_CUDA_EVENT", "CUDA event records"},
        std::pair{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA graph launches"}}) {
    if (!db_.Has(table)) continue;
    int64_t n = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0);
    if (n > 0) t_.record_counts[label] = static_cast<uint64_t>(n);
  }
  CountCuptiOverhead();
}

// CUPTI's overhead records are of two kinds (ENUM_CUPTI_OVERHEAD_TYPE): the profiler's own
// ("Buffer flush (Profiler)", "Instrumentation (Profiler)", ...), its cost, with their time; and
// the CUDA driver's (JIT compilation, module loading, lazy function loading, "Command buffer full
// (CUDA)": a full launch queue), which are the program's and no tracer overhead.
void NsysReader::CountCuptiOverhead() {
  const char* table = "CUPTI_ACTIVITY_KIND_OVERHEAD";
  if (!db_.Has(table)) return;
  const ColumnSet cols(db_, table);
  const bool typed = cols.Has("overheadType") && db_.Has("ENUM_CUPTI_OVERHEAD_TYPE");
  const std::string profiler =
      typed ? "overheadType IN (SELECT id FROM ENUM_CUPTI_OVERHEAD_TYPE WHERE label LIKE "
              "'%(Profiler)%')"
            : "1";
  const int64_t all = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0);
  const int64_t own =
      db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + table + " WHERE " + profiler, 0);
  if (own > 0) {
    t_.record_counts["CUPTI overhead ranges"] = static_cast<uint64_t>(own);
    if (cols.Has("start") && cols.Has("end")) {
      // Each range counted within the trace's span, on the same clock as its events: a range
      // the file stretches past it (or gives times that are no integers) adds no more than that.
      const auto [lo, hi] = t_.TimeSpan();
      auto q = db_.Query(std::string("SELECT start, end FROM ") + table + " WHERE " + profiler);
      while (q.ok() && q->Step()) {
        const auto s = q->Integer(0), e = q->Integer(1);
        if (s && e && std::min(*e, hi) > std::max(*s, lo))
          t_.meta.AddOverhead(std::min(*e, hi) - std::max(*s, lo));
      }
    }
  }
  if (all > own)
    t_.record_counts["CUDA driver ranges (JIT, module loading, command buffer full)"] =
        static_cast<uint64_t>(all - own);
}

}  // namespace gpuscope::import::nsys
