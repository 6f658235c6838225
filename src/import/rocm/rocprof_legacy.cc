#include "import/rocm/rocprof_legacy.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/numbers.h"
#include "base/sqlite_db.h"
#include "import/common/csv_reader.h"
#include "import/common/json_walker.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"
#include "import/rocm/rocm_names.h"
#include "model/linker.h"

namespace gpuscope::import::rocm {
namespace {

using model::Trace;

constexpr const char* kClock = "HSA system clock ns (CLOCK_BOOTTIME)";

void InitMeta(Trace& t, const std::string& path, const char* format, const char* version) {
  t.meta.path = path;
  t.meta.format = format;
  t.meta.format_version = version;
  t.meta.producer = "rocprof (legacy v1)";
  t.meta.clock = kClock;
}

// "void k<float>(float*) [clone .kd]" / "k.kd" -> the kernel name as HIP names it. The KERN
// table of results.db keeps the CSV's quotes around names: they go too.
std::string_view CleanKernelName(std::string_view n) {
  if (n.size() >= 2 && n.front() == '"' && n.back() == '"') n = n.substr(1, n.size() - 2);
  for (std::string_view suffix : {std::string_view(" [clone .kd]"), std::string_view(".kd")}) {
    if (n.size() > suffix.size() && n.substr(n.size() - suffix.size()) == suffix) {
      n.remove_suffix(suffix.size());
      break;
    }
  }
  return n;
}

// The size a copy API was asked to move, from its argument text: "sizeBytes(8388608)" (results.db,
// results.json) or "sizeBytes=8388608" (hip_api_trace.txt). -1 when absent.
int64_t SizeBytesArg(std::string_view args) {
  auto p = args.find("sizeBytes");
  if (p == std::string_view::npos) return -1;
  p += 9;
  if (p < args.size() && (args[p] == '(' || args[p] == '=')) ++p;
  size_t e = p;
  while (e < args.size() && args[e] >= '0' && args[e] <= '9') ++e;
  auto v = base::ParseInt64(args.substr(p, e - p));
  return v ? *v : -1;
}

// Builds the model from rows of any legacy source; shared by every legacy importer.
class LegacyBuilder {
 public:
  explicit LegacyBuilder(Trace* t) : t_(*t) {}

  void Kernel(int64_t begin, int64_t end, int64_t gpu, std::string_view queue, std::string_view name, uint64_t corr,
              const model::Dim3& grid = {0, 0, 0}, const model::Dim3& block = {0, 0, 0}, uint32_t vgpr = 0,
              uint32_t lds = 0) {
    model::KernelRow row;
    row.start_ns = begin;
    row.dur_ns = Dur(begin, end);
    row.device = static_cast<int16_t>(gpu);
    row.track = GpuTrack(gpu, queue);
    row.correlation = corr;
    std::string_view clean = CleanKernelName(name);
    row.name = t_.strings.Intern(clean);
    row.grid = grid;
    row.block = block;
    row.registers = vgpr;
    row.shared_mem = lds;
    row.flags = model::KernelWorkFlags(clean);
    t_.kernels.Append(row);
  }

  // A HIP op whose name says whether it is a copy, a fill or a kernel (tblextr's split).
  void Op(int64_t begin, int64_t end, int64_t gpu, std::string_view queue, std::string_view name, uint64_t corr) {
    OpClass cls = ClassifyOp(name);
    if (cls == OpClass::kKernel || cls == OpClass::kOther) {
      if (name == "Marker" || name == "<barrier packet>") {
        ++t_.record_counts["barrier/marker packets"];
        return;
      }
      Kernel(begin, end, gpu, queue, name, corr);
      return;
    }
    model::MemopRow row;
    row.start_ns = begin;
    row.dur_ns = Dur(begin, end);
    row.device = static_cast<int16_t>(gpu);
    row.track = GpuTrack(gpu, queue);
    row.correlation = corr;
    if (cls == OpClass::kFill) {
      row.kind = model::MemopKind::kMemset;
      row.dst = model::MemoryKind::kDevice;
      row.name = t_.strings.Intern("Memset (Device)");
    } else {
      row.kind = CopyDirection(name);
      CopyEnds(row.kind, &row.src, &row.dst);
      row.name = t_.strings.Intern(CopyName(row.kind));
    }
    t_.memops.Append(row);
  }

  void Api(int64_t begin, int64_t end, std::string_view pid, std::string_view tid, std::string_view name,
           uint64_t corr, std::string_view args, bool hsa) {
    model::ApiRow row;
    row.start_ns = begin;
    row.dur_ns = Dur(begin, end);
    row.track = t_.InternTrack(model::TrackKind::kCpuThread, pid, tid);
    row.name = t_.strings.Intern(name);
    row.correlation = corr;
    row.domain = hsa ? model::ApiDomain::kHsa : ApiDomainOf(name);
    int64_t size = SizeBytesArg(args);
    if (size >= 0 && corr != model::kNoCorrelation) copy_sizes_[corr] = size;
    t_.api.Append(row);
  }

  void Marker(int64_t begin, int64_t end, std::string_view pid, std::string_view tid, std::string_view text) {
    model::TrackId track = t_.InternTrack(model::TrackKind::kCpuThread, pid, tid);
    if (end <= begin) {
      t_.instants.Append(begin, t_.strings.Intern(text), track);
      return;
    }
    model::CpuRangeRow row;
    row.start_ns = begin;
    row.dur_ns = end - begin;
    row.name = t_.strings.Intern(text);
    row.track = track;
    row.kind = model::CpuRangeKind::kAnnotation;
    t_.cpu.Append(row);
  }

  // Copies take their size from the launching call's sizeBytes argument.
  void Finish() {
    for (size_t i = 0; i < t_.memops.size(); ++i) {
      if (t_.memops.kind[i] == model::MemopKind::kMemset) continue;
      auto it = copy_sizes_.find(t_.memops.correlation[i]);
      if (it != copy_sizes_.end()) t_.memops.bytes[i] = it->second;
    }
    if (!copy_sizes_.empty()) t_.meta.properties["copy sizes"] = "from the launching call's sizeBytes argument";
  }

 private:
  int64_t Dur(int64_t begin, int64_t end) { return DurationOrZero(t_, begin, end, "rocprof.end_before_start", "an event"); }

  model::TrackId GpuTrack(int64_t gpu, std::string_view queue) {
    if (gpu >= 0 && devices_.insert(gpu).second) {
      model::Device d;
      d.id = static_cast<int32_t>(gpu);
      d.name = "AMD GPU (id " + std::to_string(gpu) + " as the tool numbers it)";
      d.vendor = model::Vendor::kAmd;
      t_.devices.push_back(std::move(d));
    }
    return t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(gpu), queue.empty() ? "0" : queue);
  }

  Trace& t_;
  std::set<int64_t> devices_;
  std::unordered_map<uint64_t, int64_t> copy_sizes_;
};

// `b` must be the builder filling `trace`.
base::StatusOr<Trace> Finish(Trace& trace, LegacyBuilder& b, const std::string& path, const std::string& what) {
  b.Finish();
  if (trace.EventCount() == 0) {
    return base::Status::Error(path + ": " + what +
                               (trace.meta.import_error.empty() ? "" : " (" + trace.meta.import_error + ")"));
  }
  model::LinkTrace(trace);
  return std::move(trace);
}

int64_t Num(std::string_view s, int64_t fallback = -1) {
  auto v = base::ParseInt64(s);
  return v ? *v : fallback;
}

}  // namespace

// ---------------- results.db ----------------

bool RocprofDbImporter::Recognizes(const base::FileSniff& sniff) const {
  if (!sniff.sqlite) return false;
  int legacy = 0;
  for (const char* t : {"KERN", "HIP", "HSA", "OPS", "COPY", "rocTX"}) legacy += sniff.Has(t);
  return legacy >= 1 && !sniff.Has("rocpd_op") && !sniff.Has("StringIds");
}

base::StatusOr<model::Trace> RocprofDbImporter::Import(const std::string& path, const ImportOptions&) const {
  auto db = base::SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return db.status();
  Trace trace;
  InitMeta(trace, path, "rocprof-db", "results.db (tblextr.py tables)");
  LegacyBuilder b(&trace);
  auto count = [&](const char* table) { return db->Has(table) ? db->QueryInt(std::string("SELECT COUNT(*) FROM ") + table, 0) : 0; };
  // With --hip-trace the kernels are the HIP ops (OPS, linked by Index); otherwise KERN.
  bool use_ops = count("OPS") > 0;
  auto read = [&](const std::string& table, std::initializer_list<std::string_view> cols, auto&& row) -> base::Status {
    ColumnSet c(*db, table);
    if (!c.Has("BeginNs") || !c.Has("EndNs")) {
      if (count(table.c_str()) > 0) {
        trace.problems.Add("rocprof.table_without_timestamps", table + " has no BeginNs/EndNs columns; skipped");
      }
      return base::Status::Ok();
    }
    auto q = db->Query("SELECT " + c.Select(cols) + " FROM " + base::SqlIdent(table));
    if (!q.ok()) return q.status();
    while (q->Step()) row(*q);
    return q->status();
  };
  base::Status st;
  if (use_ops) {
    st = read("OPS", {"BeginNs", "EndNs", "dev-id", "queue-id", "Name", "Index"}, [&](const base::SqliteQuery& q) {
      b.Op(q.Int(0), q.Int(1), q.Int(2), q.Text(3), q.Text(4), q.IsNull(5) ? model::kNoCorrelation : q.Int(5));
    });
  } else if (db->Has("KERN")) {
    st = read("KERN", {"BeginNs", "EndNs", "gpu-id", "queue-id", "KernelName", "grd", "wgr", "arch_vgpr", "lds"},
              [&](const base::SqliteQuery& q) {
                b.Kernel(q.Int(0), q.Int(1), q.Int(2), q.Text(3), q.Text(4), model::kNoCorrelation,
                         {static_cast<uint32_t>(q.Int(5)), 1, 1}, {static_cast<uint32_t>(q.Int(6)), 1, 1},
                         static_cast<uint32_t>(q.Int(7)), static_cast<uint32_t>(q.Int(8)));
              });
  }
  if (st.ok() && db->Has("COPY")) {
    st = read("COPY", {"BeginNs", "EndNs", "dev-id", "queue-id", "Name", "Index"}, [&](const base::SqliteQuery& q) {
      b.Op(q.Int(0), q.Int(1), q.IsNull(2) ? -1 : q.Int(2), q.Text(3), q.Text(4),
           q.IsNull(5) ? model::kNoCorrelation : q.Int(5));
    });
  }
  for (const char* api : {"HIP", "HSA"}) {
    if (!st.ok() || !db->Has(api)) continue;
    bool hsa = std::string_view(api) == "HSA";
    st = read(api, {"BeginNs", "EndNs", "pid", "tid", "Name", "Index", "args"}, [&](const base::SqliteQuery& q) {
      b.Api(q.Int(0), q.Int(1), q.Text(2), q.Text(3), q.Text(4), q.IsNull(5) ? model::kNoCorrelation : q.Int(5),
            q.Text(6), hsa);
    });
  }
  if (st.ok() && db->Has("rocTX")) {
    st = read("rocTX", {"BeginNs", "EndNs", "pid", "tid", "Name"}, [&](const base::SqliteQuery& q) {
      b.Marker(q.Int(0), q.Int(1), q.Text(2), q.Text(3), q.Text(4));
    });
  }
  if (!st.ok()) {
    if (trace.EventCount() == 0) return st;
    trace.meta.import_error = st.message();
  }
  return Finish(trace, b, path,
                "the results.db holds no timed rows (KERN/OPS/COPY/HIP/HSA are empty or lack BeginNs/EndNs); "
                "rerun rocprof with --stats or --hip-trace");
}

// ---------------- results.csv ----------------

bool RocprofCsvImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  return h.rfind("Index,KernelName,", 0) == 0 || h.rfind("\"Index\",\"KernelName\",", 0) == 0;
}

base::StatusOr<model::Trace> RocprofCsvImporter::Import(const std::string& path, const ImportOptions&) const {
  auto r = CsvReader::Open(path);
  if (!r.ok()) return r.status();
  std::vector<std::string_view> f;
  if (!r->Next(&f)) return base::Status::Error(path + ": empty CSV");
  CsvHeader h(f);
  if (!h.Has("BeginNs") || !h.Has("EndNs")) {
    return base::Status::Error(path + ": a rocprof results.csv without BeginNs/EndNs (counter mode): it has no "
                               "timeline; rerun rocprof with --timestamp on (or --stats) to get kernel times");
  }
  Trace trace;
  InitMeta(trace, path, "rocprof-csv", h.Has("DurationNs") ? "results.csv (quoted, database path)" : "results.csv");
  LegacyBuilder b(&trace);
  int begin = h["BeginNs"], end = h["EndNs"], gpu = h["gpu-id"], queue = h["queue-id"], name = h["KernelName"];
  int grd = h["grd"], wgr = h["wgr"], vgpr = h.Has("arch_vgpr") ? h["arch_vgpr"] : h["vgpr"], lds = h["lds"];
  while (r->Next(&f)) {
    int64_t s = Num(Field(f, begin)), e = Num(Field(f, end));
    if (s < 0 || e < 0) {
      trace.problems.Add("rocprof_csv.bad_timestamp", "line " + std::to_string(r->line()) + ": BeginNs/EndNs not an integer; row skipped");
      continue;
    }
    b.Kernel(s, e, Num(Field(f, gpu)), Field(f, queue), Field(f, name), model::kNoCorrelation,
             {static_cast<uint32_t>(Num(Field(f, grd), 0)), 1, 1}, {static_cast<uint32_t>(Num(Field(f, wgr), 0)), 1, 1},
             static_cast<uint32_t>(Num(Field(f, vgpr), 0)), static_cast<uint32_t>(Num(Field(f, lds), 0)));
  }
  if (!r->error().empty()) trace.meta.import_error = r->error() + " after line " + std::to_string(r->line());
  return Finish(trace, b, path, "the results.csv has a header but no dispatch rows");
}

// ---------------- results.json ----------------

bool RocprofJsonImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  // tblextr.py's writer: '{ "traceEvents":[{}' then one event per line starting with ",{",
  // and process_name records with "sort_index"; a fragment starts directly with ",{".
  bool start = h.rfind("{ \"traceEvents\":[{}", 0) == 0 || h.rfind(",{\"args\":{\"name\":", 0) == 0;
  return start && h.find("\"name\":\"process_name\",\"sort_index\"") != std::string_view::npos;
}

bool Rpd2TracingJsonImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  // rpd2tracing.py writes '[ {}' (or '{"traceEvents": [ {}' with --format object) and
  // '{"name": "process_name", "ph": "M", "pid":"<gpu>"' records.
  bool start = h.rfind("[ {}", 0) == 0 || h.rfind("{\"traceEvents\": [ {}", 0) == 0;
  return start && h.find("{\"name\": \"process_name\", \"ph\": \"M\"") != std::string_view::npos;
}

namespace {

struct JsonEvent {
  std::string ph, name, pid, tid, ts, dur, begin, end, dev, queue, os_pid, os_tid, args, id, desc;
};

enum class Flavor { kRocprof, kRpd2Tracing };

bool ReadEvent(JsonWalker& w, JsonEvent* e) {
  return w.Object([&](std::string_view k) {
    if (k == "ph") return w.Str(&e->ph);
    if (k == "name") return w.Str(&e->name);
    if (k == "pid") return w.Str(&e->pid);
    if (k == "tid") return w.Str(&e->tid);
    if (k == "ts") return w.Str(&e->ts);
    if (k == "dur") return w.Str(&e->dur);
    if (k == "id") return w.Str(&e->id);
    if (k != "args") return w.Skip();
    char c = 0;
    if (!w.Peek(&c)) return false;
    if (c != '{') return w.Skip();
    return w.Object([&](std::string_view a) {
      if (a == "BeginNs") return w.Str(&e->begin);
      if (a == "EndNs") return w.Str(&e->end);
      if (a == "dev-id") return w.Str(&e->dev);
      if (a == "queue-id") return w.Str(&e->queue);
      if (a == "pid") return w.Str(&e->os_pid);
      if (a == "tid") return w.Str(&e->os_tid);
      if (a == "args") return w.Str(&e->args);
      if (a == "desc") return w.Str(&e->desc);
      if (a == "name" && e->ph == "M") return w.Str(&e->args);  // process_name value
      return w.Skip();
    });
  });
}

// What a process of tblextr.py's JSON holds, from its process_name (fixed pids as fallback:
// 0 markers, 1 COPY, 2 HIP API, 3 HSA API, 6 + n GPU n).
enum class Lane { kMarkers, kCopy, kHip, kHsa, kGpu, kBarriers, kOther };

Lane LaneOf(const std::string& process_name, int64_t pid) {
  if (!process_name.empty()) {
    if (process_name == "Markers and Ranges") return Lane::kMarkers;
    if (process_name == "COPY") return Lane::kCopy;
    if (process_name == "CPU HIP API") return Lane::kHip;
    if (process_name == "CPU HSA API") return Lane::kHsa;
    if (process_name.rfind("GPU Barriers", 0) == 0) return Lane::kBarriers;
    if (process_name.rfind("GPU", 0) == 0) return Lane::kGpu;
    return Lane::kOther;
  }
  switch (pid) {
    case 0: return Lane::kMarkers;
    case 1: return Lane::kCopy;
    case 2: return Lane::kHip;
    case 3: return Lane::kHsa;
    default: return pid >= 518 ? Lane::kBarriers : pid >= 6 ? Lane::kGpu : Lane::kOther;
  }
}

// Exact ns from args.BeginNs/EndNs, else from the (truncated) us strings ts/dur.
bool EventTimes(const JsonEvent& e, int64_t* begin, int64_t* end) {
  auto b = base::ParseInt64(e.begin), f = base::ParseInt64(e.end);
  if (b && f) {
    *begin = *b, *end = *f;
    return true;
  }
  auto ts = base::ParseMicrosToNs(e.ts), dur = base::ParseMicrosToNs(e.dur);
  if (!ts) return false;
  *begin = ts->ns;
  *end = ts->ns + (dur ? dur->ns : 0);
  return true;
}

base::StatusOr<model::Trace> ImportChromeJson(const std::string& path, Flavor flavor);

}  // namespace

base::StatusOr<model::Trace> RocprofJsonImporter::Import(const std::string& path, const ImportOptions&) const {
  return ImportChromeJson(path, Flavor::kRocprof);
}

base::StatusOr<model::Trace> Rpd2TracingJsonImporter::Import(const std::string& path, const ImportOptions&) const {
  return ImportChromeJson(path, Flavor::kRpd2Tracing);
}

namespace {

base::StatusOr<model::Trace> ImportChromeJson(const std::string& path, Flavor flavor) {
  auto src = base::OpenByteSource(path);
  if (!src.ok()) return src.status();
  std::string doc, chunk(1 << 20, '\0');
  for (long long n; (n = (*src)->Read(chunk.data(), chunk.size())) > 0;) doc.append(chunk.data(), static_cast<size_t>(n));
  size_t size = doc.size();
  doc.append(kJsonPadding, '\0');
  Trace trace;
  if (flavor == Flavor::kRocprof) {
    InitMeta(trace, path, "rocprof-json", "results.json (Chrome trace, string ts)");
  } else {
    InitMeta(trace, path, "rpd2tracing-json", "rpd2tracing.py Chrome trace (us strings)");
    trace.meta.producer = "rocmProfileData rpd2tracing.py";
    trace.meta.clock = "CLOCK_MONOTONIC (us resolution)";
  }
  // Events are read one by one, so that a truncated file or a fragment keeps its whole events.
  size_t p = doc.find("\"traceEvents\"");
  if (p != std::string::npos) {
    p = doc.find('[', p) + 1;
  } else {  // a bare array, or a fragment that starts inside it
    p = doc.find_first_not_of(" \t\r\n");
    p = p == std::string::npos ? 0 : p + (doc[p] == '[' ? 1 : 0);
  }
  JsonWalker w(doc.data() + p, doc.data() + size);
  std::vector<JsonEvent> events;
  bool closed = false;
  for (;;) {
    char c = 0;
    if (!w.Peek(&c)) break;
    if (c == ',') {
      if (!w.Consume(',')) break;
      continue;
    }
    if (c == ']') {
      closed = true;
      break;
    }
    JsonEvent e;
    if (!ReadEvent(w, &e)) break;
    if (!e.ph.empty()) events.push_back(std::move(e));
  }
  if (!closed) {
    trace.meta.import_error = "the event list is cut at byte " + std::to_string(p + w.error_offset()) +
                              " (a truncated file or a fragment): " + w.error();
  }
  std::map<std::string, std::string> process_names;
  for (const auto& e : events) {
    if (e.ph == "M" && e.name == "process_name") process_names[e.pid] = e.args;
  }
  LegacyBuilder b(&trace);
  // Flows pair each API call ("s": at the call's midpoint for rocprof, its start for
  // rpd2tracing) with its op ("t"/"f": at the op's start). Indexed by thread, sorted by time.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, uint64_t>>> flow_start, flow_end;
  for (const auto& e : events) {
    if (e.ph != "s" && e.ph != "t" && e.ph != "f") continue;
    auto ts_ns = base::ParseMicrosToNs(e.ts);
    auto id = base::ParseInt64(e.id);
    if (!ts_ns || !id) continue;
    (e.ph == "s" ? flow_start : flow_end)[{e.pid, e.tid}].emplace_back(ts_ns->ns / 1000, static_cast<uint64_t>(*id) + 1);
  }
  for (auto* flows : {&flow_start, &flow_end}) {
    for (auto& [k, v] : *flows) std::sort(v.begin(), v.end());
  }
  // The flow on the event's thread inside [begin, end] (us), or at its begin when !contains.
  auto corr_for = [](const auto& flows, const JsonEvent& e, int64_t begin, int64_t end, bool contains) -> uint64_t {
    auto it = flows.find({e.pid, e.tid});
    if (it == flows.end()) return model::kNoCorrelation;
    int64_t b_us = begin / 1000, e_us = contains ? end / 1000 : b_us;
    auto f = std::lower_bound(it->second.begin(), it->second.end(), std::make_pair(b_us, uint64_t{0}));
    return f != it->second.end() && f->first <= e_us ? f->second : model::kNoCorrelation;
  };
  for (const auto& e : events) {
    if (e.ph != "X") continue;
    int64_t begin = 0, end = 0;
    if (!EventTimes(e, &begin, &end)) {
      trace.problems.Add("rocprof_json.bad_ts", "event '" + e.name + "' has no usable BeginNs/EndNs or ts; skipped");
      continue;
    }
    auto it = process_names.find(e.pid);
    std::string process = it == process_names.end() ? std::string() : it->second;
    if (flavor == Flavor::kRpd2Tracing) {
      // Ops live on "GPU<n>" processes (tid = queue); everything else is an API call.
      if (process.rfind("GPU", 0) == 0) {
        int64_t gpu = Num(std::string_view(process).substr(3));
        std::string_view type = e.desc.empty() ? std::string_view(e.name) : std::string_view(e.desc);
        OpClass cls = ClassifyOp(type);
        uint64_t corr = corr_for(flow_end, e, begin, end, true);
        if (cls == OpClass::kCopy || cls == OpClass::kFill) b.Op(begin, end, gpu, e.tid, type, corr);
        else b.Kernel(begin, end, gpu, e.tid, e.name, corr);
      } else if (IsRpdOverheadApi(e.name)) {
        ++trace.record_counts["rpd tracer overhead rows (left out)"];
      } else {
        b.Api(begin, end, e.pid, e.tid, e.name, corr_for(flow_start, e, begin, end, true), {}, false);
      }
      continue;
    }
    Lane lane = LaneOf(process, Num(e.pid));
    switch (lane) {
      case Lane::kHip:
      case Lane::kHsa:
        b.Api(begin, end, e.os_pid.empty() ? e.pid : e.os_pid, e.os_tid.empty() ? e.tid : e.os_tid, e.name,
              corr_for(flow_start, e, begin, end, true), e.args, lane == Lane::kHsa);
        break;
      case Lane::kCopy:
      case Lane::kGpu:
        b.Op(begin, end, Num(e.dev), e.queue, e.name, corr_for(flow_end, e, begin, end, false));
        break;
      case Lane::kMarkers:
        b.Marker(begin, end, e.os_pid.empty() ? e.pid : e.os_pid, e.os_tid.empty() ? e.tid : e.os_tid, e.name);
        break;
      case Lane::kBarriers:
        ++trace.record_counts["GPU barrier packets"];
        break;
      case Lane::kOther:
        ++trace.record_counts["events of unknown rocprof lanes"];
        break;
    }
  }
  return Finish(trace, b, path,
                closed ? "the JSON trace holds no timed events"
                       : "a fragment of a JSON trace with no whole timed event (" + std::to_string(events.size()) +
                             " metadata records)" +
                             (flavor == Flavor::kRocprof ? "; use results.db or results.csv from the same run" : ""));
}

}  // namespace

// ---------------- hip_api_trace.txt / hcc_ops_trace.txt ----------------

namespace {

// "<begin>:<end> <a>:<b> <rest>" -> the parts; false if the line does not have that shape.
bool SplitRawLine(std::string_view line, int64_t* begin, int64_t* end, std::string_view* a, std::string_view* b,
                  std::string_view* rest) {
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return false;
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  std::string_view times = line.substr(0, sp1), ids = line.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t c1 = times.find(':'), c2 = ids.find(':');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) return false;
  auto bv = base::ParseInt64(times.substr(0, c1)), ev = base::ParseInt64(times.substr(c1 + 1));
  if (!bv || !ev) return false;
  *begin = *bv, *end = *ev;
  *a = ids.substr(0, c2), *b = ids.substr(c2 + 1);
  *rest = line.substr(sp2 + 1);
  return true;
}

std::string RawSibling(const std::string& path, std::string_view want) {
  namespace fs = std::filesystem;
  std::string name = fs::path(path).filename().string();
  for (std::string_view have : {std::string_view("hip_api_trace.txt"), std::string_view("hcc_ops_trace.txt")}) {
    if (name.size() >= have.size() && name.compare(name.size() - have.size(), have.size(), have) == 0) {
      fs::path sib = fs::path(path).parent_path() / (name.substr(0, name.size() - have.size()) + std::string(want));
      std::error_code ec;
      return fs::is_regular_file(sib, ec) ? sib.string() : std::string();
    }
  }
  return {};
}

base::Status ReadLines(const std::string& path, Trace& trace, const std::function<bool(std::string_view)>& line) {
  auto src = base::OpenByteSource(path);
  if (!src.ok()) return src.status();
  std::string buf, chunk(1 << 20, '\0');
  uint64_t n = 0;
  auto flush = [&](bool all) {
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view l(buf.data() + start, nl - start);
      ++n;
      if (!l.empty() && !line(l)) trace.problems.Add("rocprof_raw.bad_line", path + " line " + std::to_string(n));
    }
    buf.erase(0, start);
    if (all && !buf.empty()) {
      ++n;
      if (!line(buf)) trace.problems.Add("rocprof_raw.bad_line", path + " line " + std::to_string(n));
      buf.clear();
    }
  };
  for (long long r; (r = (*src)->Read(chunk.data(), chunk.size())) > 0;) {
    buf.append(chunk.data(), static_cast<size_t>(r));
    flush(false);
  }
  flush(true);
  return base::Status::Ok();
}

bool LooksLikeHipApiLine(std::string_view l) {
  int64_t b = 0, e = 0;
  std::string_view x, y, rest;
  return SplitRawLine(l, &b, &e, &x, &y, &rest) && rest.find('(') != std::string_view::npos &&
         rest.rfind(" :") != std::string_view::npos;
}

bool LooksLikeOpsLine(std::string_view l) {
  int64_t b = 0, e = 0;
  std::string_view x, y, rest;
  if (!SplitRawLine(l, &b, &e, &x, &y, &rest)) return false;
  size_t c2 = rest.rfind(':');
  size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : rest.rfind(':', c2 - 1);
  return c1 != std::string_view::npos && base::ParseInt64(rest.substr(c1 + 1, c2 - c1 - 1)) &&
         base::ParseInt64(rest.substr(c2 + 1));
}

}  // namespace

bool RocprofRawImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  std::string_view first = h.substr(0, h.find('\n'));
  return LooksLikeHipApiLine(first) || LooksLikeOpsLine(first);
}

base::StatusOr<model::Trace> RocprofRawImporter::Import(const std::string& path, const ImportOptions&) const {
  Trace trace;
  InitMeta(trace, path, "rocprof-raw", "rpl_data intermediate text");
  LegacyBuilder b(&trace);
  std::string name = std::filesystem::path(path).filename().string();
  bool is_ops = name.find("hcc_ops_trace") != std::string::npos;
  std::unordered_map<int64_t, std::string> kernel_names;  // correlation -> full kernel name
  std::string api_file = is_ops ? RawSibling(path, "hip_api_trace.txt") : path;
  std::string ops_file = is_ops ? path : RawSibling(path, "hcc_ops_trace.txt");
  if (!api_file.empty()) {
    // <begin>:<end> <pid>:<tid> <api>(<args>)[ kernel=<name>] :<corr>
    GPUSCOPE_RETURN_IF_ERROR(ReadLines(api_file, trace, [&](std::string_view l) {
      int64_t begin = 0, end = 0;
      std::string_view pid, tid, rest;
      if (!SplitRawLine(l, &begin, &end, &pid, &tid, &rest)) return false;
      size_t colon = rest.rfind(" :");
      size_t paren = rest.find('(');
      if (colon == std::string_view::npos || paren == std::string_view::npos) return false;
      auto corr = base::ParseInt64(rest.substr(colon + 2));
      b.Api(begin, end, pid, tid, rest.substr(0, paren), corr ? static_cast<uint64_t>(*corr) : model::kNoCorrelation,
            rest.substr(paren, colon - paren), false);
      // Launches name their kernel in full (" kernel=<name>"); the ops file has only the base name.
      size_t k = rest.find(") kernel=");
      if (corr && k != std::string_view::npos && k < colon) kernel_names[*corr] = std::string(rest.substr(k + 9, colon - k - 9));
      return true;
    }));
  } else {
    trace.meta.not_collected.push_back("HIP API calls (no hip_api_trace.txt beside the ops file)");
  }
  if (!ops_file.empty()) {
    // <begin>:<end> <dev>:<queue> <OpName>:<corr>:<pid>
    GPUSCOPE_RETURN_IF_ERROR(ReadLines(ops_file, trace, [&](std::string_view l) {
      int64_t begin = 0, end = 0;
      std::string_view dev, queue, rest;
      if (!SplitRawLine(l, &begin, &end, &dev, &queue, &rest)) return false;
      size_t c2 = rest.rfind(':');
      size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : rest.rfind(':', c2 - 1);
      if (c1 == std::string_view::npos) return false;
      auto corr = base::ParseInt64(rest.substr(c1 + 1, c2 - c1 - 1));
      auto full = corr ? kernel_names.find(*corr) : kernel_names.end();
      std::string_view op_name = full != kernel_names.end() ? std::string_view(full->second) : rest.substr(0, c1);
      b.Op(begin, end, Num(dev), queue, op_name, corr ? static_cast<uint64_t>(*corr) : model::kNoCorrelation);
      return true;
    }));
  } else {
    trace.meta.not_collected.push_back("GPU ops (no hcc_ops_trace.txt beside the API file)");
  }
  return Finish(trace, b, path, "no lines in the rocprof intermediate files");
}

// ---------------- *.stats.csv ----------------

bool RocprofStatsImporter::Recognizes(const base::FileSniff& sniff) const {
  std::string_view h(sniff.head);
  return h.rfind("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"", 0) == 0;
}

base::StatusOr<model::Trace> RocprofStatsImporter::Import(const std::string& path, const ImportOptions&) const {
  auto r = CsvReader::Open(path);
  if (!r.ok()) return r.status();
  std::vector<std::string_view> f;
  if (!r->Next(&f)) return base::Status::Error(path + ": empty CSV");
  CsvHeader h(f);
  Trace trace;
  std::string file = std::filesystem::path(path).filename().string();
  bool v3 = h.Has("MinNs");
  InitMeta(trace, path, "rocprof-stats", v3 ? "rocprofv3 --stats summary (no timeline)" : "rocprof --stats summary (no timeline)");
  if (v3) trace.meta.producer = "rocprofv3 (rocprofiler-sdk)";
  // The section comes from the file name: *hip_stats / *hip_api_stats / *hsa_* -> API calls,
  // *copy_stats / *memory_copy_stats -> copies, *.stats.csv / *kernel_stats -> kernels.
  model::SummaryRow::Section section = model::SummaryRow::Section::kKernel;
  if (file.find("domain_stats") != std::string::npos) {
    return base::Status::Error(path + ": a per-domain summary (domain_stats) has no per-name rows to show; give "
                               "kernel_stats.csv, hip_api_stats.csv or the trace");
  }
  if (file.find("hip_") != std::string::npos || file.find("hsa_") != std::string::npos ||
      file.find("marker_") != std::string::npos || file.find("rccl_") != std::string::npos) {
    section = model::SummaryRow::Section::kApi;
  } else if (file.find("copy_stats") != std::string::npos) {
    section = model::SummaryRow::Section::kCopy;
  }
  int name = h["Name"], calls = h["Calls"], total = h["TotalDurationNs"], mn = h["MinNs"], mx = h["MaxNs"],
      sd = h["StdDev"];
  while (r->Next(&f)) {
    auto c = base::ParseInt64(Field(f, calls));
    auto t = base::ParseInt64(Field(f, total));
    if (!c || !t) {
      trace.problems.Add("rocprof_stats.bad_row", "line " + std::to_string(r->line()) + ": Calls/TotalDurationNs not integers; skipped");
      continue;
    }
    model::SummaryRow row;
    row.section = section;
    row.name = std::string(section == model::SummaryRow::Section::kKernel ? CleanKernelName(Field(f, name)) : Field(f, name));
    if (section == model::SummaryRow::Section::kCopy) {
      OpClass cls = ClassifyOp(row.name);
      row.copy_kind = cls == OpClass::kFill ? model::MemopKind::kMemset : CopyDirection(row.name);
    }
    row.calls = static_cast<uint64_t>(*c);
    row.total_ns = *t;
    if (mn >= 0) row.min_ns = Num(Field(f, mn));
    if (mx >= 0) row.max_ns = Num(Field(f, mx));
    if (sd >= 0) {
      auto d = base::ParseDouble(Field(f, sd));
      row.stddev_ns = d ? static_cast<int64_t>(*d + 0.5) : -1;
    }
    trace.summary.push_back(std::move(row));
  }
  if (trace.summary.empty()) return base::Status::Error(path + ": the summary CSV has a header but no rows");
  return trace;
}

}  // namespace gpuscope::import::rocm
