// rocprofv3's rocpd SQLite databases (`<pid>_results.db`, ROCm 7.0+ default
// output, schema 3.x). Real table names carry a per-process UUID suffix; everything is read
// through the un-suffixed rocpd_* views, with LEFT JOINs (the tool's own data views use INNER
// joins that silently drop rows). Kernel dispatches and memory copies link to their launching
// HIP call through the event's stack_id (the internal correlation id, = rocpd_region.id);
// corr_id is the external id and is not used. Timestamps: CLOCK_BOOTTIME ns.
//
// A run writes one database per process: ReadRocpdFiles merges several into one trace.

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "base/sqlite_db.h"
#include "format/written_by.h"
#include "import/common/allocation_records.h"
#include "import/common/rocm_names.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"
#include "import/formats.h"
#include "model/merge.h"

namespace gpuscope::import::rocpd {

using namespace rocm;  // the ROCm name classifiers
namespace {

using base::SqliteDb;
using model::Trace;

class RocpdReader {
 public:
  // `corr_offset` keeps correlation ids of different databases (processes) apart.
  RocpdReader(const SqliteDb& db, Trace* trace, uint64_t corr_offset)
      : db_(db),
        t_(*trace),
        offset_(corr_offset),
        strings_(db, trace, "SELECT string FROM rocpd_string WHERE id = ?1") {}

  base::Status Read() {
    for (const char* view :
         {"rocpd_kernel_dispatch", "rocpd_region", "rocpd_event", "rocpd_string"}) {
      if (!db_.Has(view)) {
        return base::Status::Error(
            db_.path() + ": a rocpd database without the " + view +
            " view; is it complete? (rocprofv3 writes it when the run ends)");
      }
    }
    for (const auto& [view, table] : db_.replaced_views())
      t_.problems.Add(model::ProblemKind::kSqliteViewReplaced, view + " read from " + table);
    ReadMetadata();
    ReadAgents();
    ReadProcesses();
    GPUSCOPE_RETURN_IF_ERROR(ReadKernels());
    GPUSCOPE_RETURN_IF_ERROR(ReadCopies());
    GPUSCOPE_RETURN_IF_ERROR(ReadRegions());
    GPUSCOPE_RETURN_IF_ERROR(ReadSamples());
    GPUSCOPE_RETURN_IF_ERROR(ReadAllocations());
    for (auto [view, label] :
         {std::pair{"rocpd_pmc_event", "hardware counter values (not modelled)"}}) {
      if (!db_.Has(view)) continue;
      int64_t n = db_.QueryInt(std::string("SELECT COUNT(*) FROM ") + view, 0);
      if (n > 0) t_.record_counts[label] += static_cast<uint64_t>(n);
    }
    return base::Status::Ok();
  }

 private:
  void ReadMetadata() {
    t_.meta.clock = "CLOCK_BOOTTIME (ns)";
    std::string schema =
        db_.QueryText("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", "?");
    t_.meta.format_version = "rocpd schema " + schema;
    t_.meta.producer = "rocprofv3 (rocprofiler-sdk, ROCm 7+)";
    if (auto q = db_.Query("SELECT tag, value FROM rocpd_metadata"); q.ok()) {
      while (q->Step()) t_.meta.properties[std::string(q->Text(0))] = std::string(q->Text(1));
    }
    // Written by gpuscope's export (convert, run): say so.
    auto& p = t_.meta.properties;
    if (auto f = p.find("gpuscope_source_format"); f != p.end()) {
      t_.meta.producer = format::WrittenByLabel(
          p["gpuscope_written_by"], p["gpuscope_source_producer"], f->second, p["gpuscope_source"]);
    }
  }

  void ReadAgents() {
    if (!db_.Has("rocpd_info_agent")) return;
    // extdata is the SDK's agent record as JSON; json_extract is built into SQLite >= 3.38.
    auto q = db_.Query(
        "SELECT id, name, product_name, json_extract(extdata, '$.cu_count'), json_extract(extdata, "
        "'$.wave_front_size'), json_extract(extdata, '$.mem_banks[0].size_in_bytes'), "
        "vendor_name FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY id");
    if (!q.ok()) {
      q = db_.Query(
          "SELECT id, name, product_name, NULL, NULL, NULL, NULL FROM rocpd_info_agent WHERE "
          "type = 'GPU' ORDER BY id");
      if (!q.ok()) return;
    }
    while (q->Step()) {
      model::Device d;
      d.id = static_cast<int32_t>(q->Int(0));
      std::string product(q->Text(2)), arch(q->Text(1));  // "AMD Instinct MI300X", "gfx942"
      d.name = product.empty()                   ? arch
               : arch.empty() || arch == product ? product
                                                 : product + " (" + arch + ")";
      // rocprofv3 profiles AMD GPUs; a converted trace may say another vendor.
      d.vendor = q->Text(6) == "NVIDIA" ? model::Vendor::kNvidia : model::Vendor::kAmd;
      d.compute_units = static_cast<int32_t>(q->Int(3));
      d.warp_size = static_cast<int32_t>(q->Int(4));
      d.total_memory = q->Int(5);
      t_.devices.push_back(std::move(d));
    }
  }

  void ReadProcesses() {
    if (db_.Has("rocpd_info_process")) {
      if (auto q = db_.Query("SELECT pid, command FROM rocpd_info_process"); q.ok()) {
        while (q->Step()) t_.process_names[q->Int(0)] = t_.strings.Intern(q->Text(1));
      }
    }
    if (db_.Has("rocpd_info_thread")) {
      if (auto q = db_.Query("SELECT pid, tid, name FROM rocpd_info_thread"); q.ok()) {
        while (q->Step()) {
          if (!q->Text(2).empty()) thread_names_[{q->Int(0), q->Int(1)}] = std::string(q->Text(2));
        }
      }
    }
  }

  model::TrackId CpuTrack(int64_t pid, int64_t tid) {
    bool created = false;
    model::TrackId id = cpu_tracks_.Get(pid, tid, &created);
    if (created) {
      auto name = thread_names_.find({pid, tid});
      if (name != thread_names_.end()) t_.tracks[id].name = t_.strings.Intern(name->second);
    }
    return id;
  }

  model::TrackId GpuTrack(int64_t agent, int64_t queue) { return gpu_tracks_.Get(agent, queue); }

  uint64_t Corr(const base::SqliteQuery& q, int col) const {
    return q.IsNull(col) ? model::kNoCorrelation : offset_ + static_cast<uint64_t>(q.Int(col));
  }

  base::Status ReadKernels() {
    bool symbols = db_.Has("rocpd_info_kernel_symbol");
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q,
        db_.Query(
            std::string("SELECT k.start, k.end, k.agent_id, k.queue_id, e.stack_id, ") +
            (symbols ? "s.display_name, s.kernel_name, s.arch_vgpr_count, "
                     : "NULL, NULL, NULL, ") +
            "k.kernel_id, k.grid_size_x, k.grid_size_y, k.grid_size_z, k.workgroup_size_x, "
            "k.workgroup_size_y, "
            "k.workgroup_size_z, k.group_segment_size FROM rocpd_kernel_dispatch k "
            "LEFT JOIN rocpd_event e ON e.id = k.event_id AND e.guid = k.guid " +
            (symbols
                 ? "LEFT JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id AND s.guid = k.guid"
                 : "")));
    std::map<int64_t, model::StringId> names;  // kernel_id -> name
    while (q.Step()) {
      model::KernelRow row;
      row.start_ns = TimeAt(q, 0);
      row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
      row.device = static_cast<int16_t>(q.Int(2));
      row.track = GpuTrack(q.Int(2), q.Int(3));
      row.correlation = Corr(q, 4);
      auto [it, inserted] = names.emplace(q.Int(8), 0);
      if (inserted) {
        std::string_view display = q.Text(5), raw = q.Text(6);
        if (raw.size() > 3 && raw.substr(raw.size() - 3) == ".kd") raw.remove_suffix(3);
        if (display.empty() && raw.empty()) {
          t_.problems.Add(
              model::ProblemKind::kRocpdKernelWithoutSymbol,
              "kernel_id " + std::to_string(q.Int(8)) + " has no rocpd_info_kernel_symbol row");
          it->second = t_.strings.Intern("<kernel " + std::to_string(q.Int(8)) + ">");
        } else {
          it->second = t_.strings.Intern(display.empty() ? raw : display);
        }
      }
      row.name = it->second;
      row.registers = static_cast<uint32_t>(q.Int(7));
      for (int i = 0; i < 3; ++i) {
        row.grid[i] = static_cast<uint32_t>(q.Int(9 + i));
        row.block[i] = static_cast<uint32_t>(q.Int(12 + i));
      }
      row.shared_mem = static_cast<uint32_t>(q.Int(15));
      row.flags = model::KernelWorkFlags(t_.str(row.name));
      t_.kernels.Append(row);
    }
    return q.status();
  }

  base::Status ReadCopies() {
    if (!db_.Has("rocpd_memory_copy")) {
      t_.meta.not_collected.push_back("memory copies (no rocpd_memory_copy view)");
      return base::Status::Ok();
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                              db_.Query("SELECT m.start, m.end, m.dst_agent_id, m.src_agent_id, "
                                        "m.queue_id, m.size, m.name_id, e.stack_id "
                                        "FROM rocpd_memory_copy m LEFT JOIN rocpd_event e ON e.id "
                                        "= m.event_id AND e.guid = m.guid"));
    uint64_t n = 0;
    while (q.Step()) {
      ++n;
      model::MemopRow row;
      row.start_ns = TimeAt(q, 0);
      row.dur_ns = model::DurationBetween(row.start_ns, TimeAt(q, 1));
      row.kind = CopyDirection(strings_.Text(q.Int(6)));
      CopyEnds(row.kind, &row.src, &row.dst);
      // The copy runs on the GPU side's DMA engine: the device end is the track.
      int64_t agent = row.kind == model::MemopKind::kDtoH ? q.Int(3) : q.Int(2);
      row.device = static_cast<int16_t>(agent);
      row.track = GpuTrack(agent, q.Int(4));
      row.bytes = q.Integer(5).value_or(-1);
      row.correlation = Corr(q, 7);
      row.name = t_.strings.Intern(CopyName(row.kind));
      t_.memops.Append(row);
    }
    if (n == 0)
      t_.meta.not_collected.push_back("memory copies (rocprofv3 ran without --memory-copy-trace)");
    return q.status();
  }

  // Allocations and frees of real memory (level REAL; virtual reservations and scratch are
  // counted) as device memory events, in time order: a free's block found by its address.
  base::Status ReadAllocations() {
    if (!db_.Has("rocpd_memory_allocate")) return base::Status::Ok();
    std::set<int64_t> gpus;
    for (const auto& d : t_.devices) gpus.insert(d.id);
    GPUSCOPE_ASSIGN_OR_RETURN(auto q, db_.Query("SELECT start, pid, tid, agent_id, type, level, "
                                                "address, size FROM rocpd_memory_allocate "
                                                "ORDER BY start"));
    AllocationRecords records(&t_);
    while (q.Step()) {
      std::string_view type = q.Text(4), level = q.Text(5);
      if (level != "REAL") {
        records.NotModelled(level == "SCRATCH"
                                ? "scratch memory records (not modelled)"
                                : "virtual memory allocation records (not modelled)");
        continue;
      }
      int64_t ts = TimeAt(q, 0);
      model::TrackId track = CpuTrack(q.Int(1), q.Int(2));
      auto addr = static_cast<uint64_t>(q.Int(6));
      if (type == "ALLOC") {
        int64_t agent = q.IsNull(3) ? -1 : q.Int(3);
        records.Allocate(ts, track, gpus.count(agent) ? static_cast<int>(agent) : -1, addr,
                         q.Int(7));
      } else if (type == "FREE") {
        records.Free(ts, track, addr);
      } else {
        records.NotModelled("memory reallocation / reclaim records (not modelled)");
      }
    }
    return q.status();
  }

  // API calls (HIP runtime/compiler, HSA, RCCL, ...) and roctx ranges: regions with their event.
  base::Status ReadRegions() {
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q,
        db_.Query(
            "SELECT r.pid, r.tid, r.start, r.end, r.name_id, e.stack_id, c.string, "
            "json_extract(e.extdata, '$.message') "
            "FROM rocpd_region r LEFT JOIN rocpd_event e ON e.id = r.event_id AND e.guid = r.guid "
            "LEFT JOIN rocpd_string c ON c.id = e.category_id AND c.guid = e.guid"));
    while (q.Step()) {
      std::string_view category = q.Text(6);
      int64_t start = TimeAt(q, 2);
      int64_t dur = model::DurationBetween(start, TimeAt(q, 3));
      model::TrackId track = CpuTrack(q.Int(0), q.Int(1));
      if (category.rfind("MARKER", 0) == 0) {
        model::CpuRangeRow row;
        row.start_ns = start;
        row.dur_ns = dur;
        row.track = track;
        // emit_nvtx writes its ranges with roctx on ROCm: ops by their text.
        NameRangeByText(t_, q.IsNull(7) ? strings_.Text(q.Int(4)) : q.Text(7), &row);
        t_.cpu.Append(row);
        continue;
      }
      auto row = model::MakeSlice<model::ApiRow>(start, dur, strings_.Get(q.Int(4)), track);
      row.correlation = Corr(q, 5);
      row.domain =
          category.rfind("HSA", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
      t_.api.Append(row);
    }
    return q.status();
  }

  // Zero-length API records are samples: roctx marks become instants, the rest are counted.
  base::Status ReadSamples() {
    if (!db_.Has("rocpd_sample") || !db_.Has("rocpd_track")) return base::Status::Ok();
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q, db_.Query("SELECT s.timestamp, t.pid, t.tid, c.string, json_extract(e.extdata, "
                          "'$.message'), e.id, s.event_id FROM rocpd_sample s "
                          "LEFT JOIN rocpd_track t ON t.id = s.track_id AND t.guid = s.guid "
                          "LEFT JOIN rocpd_event e ON e.id = s.event_id AND e.guid = s.guid "
                          "LEFT JOIN rocpd_string c ON c.id = e.category_id AND c.guid = e.guid"));
    while (q.Step()) {
      if (q.Text(3).rfind("MARKER", 0) == 0 && !q.IsNull(4)) {
        t_.instants.Append(TimeAt(q, 0), t_.strings.Intern(q.Text(4)),
                           CpuTrack(q.Int(1), q.Int(2)));
      } else if (q.IsNull(5)) {
        t_.problems.Add(model::ProblemKind::kRocpdSampleWithoutEvent,
                        "a rocpd_sample row whose event_id '" + std::string(q.Text(6)) + "'" +
                            " names no rocpd_event row; skipped");
      } else {
        ++t_.record_counts["zero-length API samples (rocpd_sample)"];
      }
    }
    return q.status();
  }

  const SqliteDb& db_;
  Trace& t_;
  uint64_t offset_;
  StringIdMap strings_;
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names_;
  NumericTracks cpu_tracks_{&t_, model::TrackKind::kCpuThread};
  NumericTracks gpu_tracks_{&t_, model::TrackKind::kGpuStream};
};

base::Status ReadOne(const std::string& path, Trace* trace, uint64_t corr_offset) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto db, SqliteDb::OpenReadOnly(path));
  RocpdReader reader(db, trace, corr_offset);
  return reader.Read();
}

}  // namespace

bool RecognizesRocpd(const base::FileSniff& sniff) {
  return sniff.sqlite && sniff.Has("rocpd_kernel_dispatch") && sniff.Has("rocpd_region");
}

base::StatusOr<ImportResult> ReadRocpd(const std::string& path, const ImportOptions& options) {
  return ReadRocpdFiles({path}, path, options);
}

base::StatusOr<ImportResult> ReadRocpdFiles(const std::vector<std::string>& paths,
                                            const std::string& label,
                                            const ImportOptions& options) {
  ImportResult result;
  Trace& merged = result.trace;
  for (size_t i = 0; i < paths.size(); ++i) {
    Trace one;
    // Correlation ids restart in every process: keep them apart in the high bits.
    base::Status st = ReadOne(paths[i], &one, static_cast<uint64_t>(i) << 40);
    if (!st.ok()) {
      if (one.EventCount() == 0) return st;
      merged.meta.import_error = st.message();
    }
    if (i == 0) {
      merged.meta = one.meta;
      merged.meta.import_error.clear();
    }
    for (auto& w : one.meta.not_collected) {
      if (std::find(merged.meta.not_collected.begin(), merged.meta.not_collected.end(), w) ==
          merged.meta.not_collected.end()) {
        merged.meta.not_collected.push_back(w);
      }
    }
    model::AppendTrace(merged, std::move(one), {.threads = options.threads});
  }
  // The same GPU appears in every process's database.
  std::set<int32_t> seen;
  std::vector<model::Device> devices;
  for (auto& d : merged.devices) {
    if (seen.insert(d.id).second) devices.push_back(std::move(d));
  }
  merged.devices = std::move(devices);
  merged.meta.path = label;
  if (paths.size() > 1) {
    merged.meta.format_version +=
        ", " + std::to_string(paths.size()) + " databases merged (one per process)";
  }
  result.empty_reason =
      "the rocpd database holds no events (no kernel dispatches, copies or API regions); run "
      "rocprofv3 with e.g. "
      "--runtime-trace";
  return result;
}

}  // namespace gpuscope::import::rocpd
