#include "output/chrome_trace_writer.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <unordered_map>

#include "base/text.h"
#include "format/chrome_trace.h"
#include "output/json_writer.h"
#include "output/track_layout.h"

namespace gpuscope::output {
namespace {

using model::Trace;
namespace ct = format::chrome_trace;

// Earliest timestamp of any event: the origin of the written times.
int64_t Origin(const Trace& t) {
  int64_t lo = std::numeric_limits<int64_t>::max();
  auto widen = [&](const std::vector<int64_t>& v) {
    for (int64_t x : v) lo = std::min(lo, x);
  };
  widen(t.kernels.start_ns), widen(t.memops.start_ns), widen(t.api.start_ns), widen(t.cpu.start_ns);
  widen(t.python.start_ns), widen(t.gpu_ranges.start_ns), widen(t.counters.ts_ns),
      widen(t.instants.ts_ns), widen(t.memory.ts_ns);
  return lo == std::numeric_limits<int64_t>::max() ? 0 : lo;
}

// Builds one event's text, then hands it to the sink.
class EventWriter {
 public:
  EventWriter(base::ByteSink& out, int64_t origin) : out_(out), origin_(origin) {}

  void Begin(char ph, std::string_view cat, std::string_view name, int64_t pid, int64_t tid,
             int64_t ts_ns) {
    s_.clear();
    s_ += first_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
    first_ = false;
    s_ += ph;
    s_ += "\",\"cat\":";
    JsonWriter::Escape(s_, cat);
    s_ += ",\"name\":";
    JsonWriter::Escape(s_, name);
    s_ += ",\"pid\":";
    Int(pid);
    s_ += ",\"tid\":";
    Int(tid);
    s_ += ",\"ts\":";
    if (ph == 'M') {
      s_ += '0';
    } else {
      Micros(ts_ns - origin_);
    }
  }
  void Dur(int64_t ns) {
    s_ += ",\"dur\":";
    Micros(ns);
  }
  void Raw(std::string_view text) { s_ += text; }
  void BeginArgs() {
    s_ += ",\"args\":{";
    first_arg_ = true;
  }
  void ArgInt(std::string_view key, int64_t v) {
    ArgKey(key);
    Int(v);
  }
  void ArgString(std::string_view key, std::string_view v) {
    ArgKey(key);
    JsonWriter::Escape(s_, v);
  }
  void ArgBool(std::string_view key, bool v) {
    ArgKey(key);
    s_ += v ? "true" : "false";
  }
  void ArgDims(std::string_view key, const model::Dim3& d) {
    ArgKey(key);
    s_ += '[';
    Int(d[0]), s_ += ',', Int(d[1]), s_ += ',', Int(d[2]);
    s_ += ']';
  }
  // The members of a JSON object written by model::EncodeOpArgs, copied as they are.
  void ArgMembers(std::string_view object) {
    if (object.size() < 2 || object.front() != '{' || object.back() != '}' ||
        !base::IsCleanUtf8(object))
      return;
    std::string_view members = object.substr(1, object.size() - 2);
    if (members.empty()) return;
    if (!first_arg_) s_ += ',';
    first_arg_ = false;
    s_ += members;
  }
  void EndArgs() { s_ += '}'; }
  void End() {
    s_ += '}';
    out_.Write(s_);
  }

 private:
  void ArgKey(std::string_view key) {
    if (!first_arg_) s_ += ',';
    first_arg_ = false;
    JsonWriter::Escape(s_, key);
    s_ += ':';
  }
  void Int(int64_t v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    s_.append(buf, p);
  }
  // ns -> "123.456" (microseconds, exactly 3 decimals, no rounding).
  void Micros(int64_t ns) {
    if (ns < 0) s_ += '-', ns = -ns;
    Int(ns / 1000);
    int64_t frac = ns % 1000;
    char d[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                 static_cast<char>('0' + frac % 10)};
    s_.append(d, 4);
  }

  base::ByteSink& out_;
  int64_t origin_;
  std::string s_;
  bool first_ = true;
  bool first_arg_ = true;
};

void WriteMetadata(EventWriter& w, const Trace& t, const TrackLayout& layout,
                   const std::vector<MarkerRow>& rows) {
  std::set<int64_t> seen;
  auto meta = [&](std::string_view name, int64_t pid, int64_t tid, auto&& add_args) {
    w.Begin('M', "__metadata", name, pid, tid, 0);
    w.BeginArgs();
    add_args();
    w.EndArgs();
    w.End();
  };
  // Names the source gave are written as they are. Rows without one get a label for viewers
  // ("GPU 0: H100", "stream 7"; "host process" / "thread", to which viewers add the id), marked
  // "generated" so that gpuscope does not read it back as a name.
  auto name = [&](const char* what, int64_t pid, int64_t tid, const std::string& source,
                  const std::string& label) {
    meta(what, pid, tid, [&] {
      w.ArgString("name", source.empty() ? label : source);
      if (source.empty()) w.ArgBool(ct::kArgGenerated, true);
    });
  };
  for (size_t i = 0; i < layout.tracks.size(); ++i) {
    const TrackView& v = layout.tracks[i];
    bool host = t.tracks[i].kind == model::TrackKind::kCpuThread;
    if (seen.insert(v.pid).second) {
      name("process_name", v.pid, 0, v.source_process, host ? "host process" : v.process);
      meta("process_sort_index", v.pid, 0, [&] { w.ArgInt("sort_index", v.process_order); });
    }
    name("thread_name", v.pid, v.tid, v.source_thread, host ? "thread" : v.thread);
    meta("thread_sort_index", v.pid, v.tid, [&] { w.ArgInt("sort_index", v.thread_order); });
  }
  if (!rows.empty()) {
    name("process_name", layout.spare_pid, 0, "",
         rows.size() == 1 ? "gpuscope " + rows[0].name : "gpuscope");
    meta("process_sort_index", layout.spare_pid, 0, [&] { w.ArgInt("sort_index", -1); });
    for (size_t r = 0; r < rows.size(); ++r) {
      auto tid = static_cast<int64_t>(r + 1);
      name("thread_name", layout.spare_pid, tid, "", rows[r].name);
      meta("thread_sort_index", layout.spare_pid, tid, [&] { w.ArgInt("sort_index", tid); });
    }
  }
}

std::string_view MemopCategory(model::MemopKind k) {
  return k == model::MemopKind::kMemset ? "gpu_memset" : "gpu_memcpy";
}

}  // namespace

base::StatusOr<ChromeTraceCounts> WriteChromeTrace(const Trace& t, const ChromeTraceOptions& opt,
                                                   base::ByteSink& out) {
  const TrackLayout layout = LayoutTracks(t);
  const int64_t origin = Origin(t);
  ChromeTraceCounts counts;
  out.Write("{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\"");
  if (t.meta.base_time_ns != 0) {
    out.Write(",\"baseTimeNanoseconds\":" + std::to_string(t.meta.base_time_ns + origin));
  }
  {
    // Where the events came from (flat keys: readers keep top-level scalars as properties).
    std::string src = ",\"" + std::string(ct::kKeySourcePath) + "\":";
    JsonWriter::Escape(src, t.meta.path);
    src += ",\"" + std::string(ct::kKeySourceFormat) + "\":";
    JsonWriter::Escape(src, t.meta.format);
    src += ",\"" + std::string(ct::kKeySourceClock) + "\":";
    JsonWriter::Escape(src, t.meta.clock);
    src += ",\"" + std::string(ct::kKeyTimeOriginNs) + "\":" + std::to_string(origin);
    out.Write(src);
  }
  if (t.meta.rank >= 0) {
    out.Write(",\"distributedInfo\":{\"rank\":" + std::to_string(t.meta.rank) +
              ",\"world_size\":" + std::to_string(t.meta.world_size) + "}");
  }
  if (!t.devices.empty()) {
    JsonWriter d(false);
    d.BeginArray();
    for (const model::Device& dev : t.devices) {
      d.BeginObject().Key("id").Int(dev.id).Key("name").String(dev.name);
      if (dev.total_memory > 0) d.Key("totalGlobalMem").Int(dev.total_memory);
      if (dev.compute_units > 0) d.Key("numSms").Int(dev.compute_units);
      if (dev.warp_size > 0) d.Key("warpSize").Int(dev.warp_size);
      if (dev.compute_major >= 0)
        d.Key("computeMajor").Int(dev.compute_major).Key("computeMinor").Int(dev.compute_minor);
      d.EndObject();
    }
    d.EndArray();
    out.Write(",\"deviceProperties\":" + d.str());
  }
  out.Write(",\"traceEvents\":[");
  EventWriter w(out, origin);
  WriteMetadata(w, t, layout, opt.rows);
  auto pt = [&](model::TrackId track) -> const TrackView& { return layout.tracks[track]; };
  // The head of one complete ("X") event for row i of a table; returns the row's track view.
  auto slice = [&](std::string_view cat, const model::SliceColumns& s,
                   size_t i) -> const TrackView& {
    const TrackView& v = pt(s.track[i]);
    w.Begin('X', cat, t.str(s.name[i]), v.pid, v.tid, s.start_ns[i]);
    w.Dur(s.dur_ns[i]);
    return v;
  };

  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    const TrackView& v = slice("kernel", k, i);
    w.BeginArgs();
    if (k.device[i] >= 0) w.ArgInt("device", k.device[i]);
    w.ArgInt("stream", v.tid);
    if (k.correlation[i] != model::kNoCorrelation)
      w.ArgInt("correlation", static_cast<int64_t>(k.correlation[i]));
    w.ArgDims("grid", k.grid[i]);
    w.ArgDims("block", k.block[i]);
    if (k.registers[i]) w.ArgInt("registers per thread", k.registers[i]);
    if (k.shared_mem[i]) w.ArgInt("shared memory", k.shared_mem[i]);
    w.EndArgs();
    w.End();
  }
  const auto& m = t.memops;
  for (size_t i = 0; i < m.size(); ++i) {
    const TrackView& v = slice(MemopCategory(m.kind[i]), m, i);
    w.BeginArgs();
    if (m.device[i] >= 0) w.ArgInt("device", m.device[i]);
    w.ArgInt("stream", v.tid);
    if (m.correlation[i] != model::kNoCorrelation)
      w.ArgInt("correlation", static_cast<int64_t>(m.correlation[i]));
    if (m.bytes[i] >= 0) w.ArgInt("bytes", m.bytes[i]);
    w.ArgString(ct::kArgCopyKind, model::MemopKindName(m.kind[i]));
    if (m.src[i] != model::MemoryKind::kUnknown)
      w.ArgString(ct::kArgSrcKind, model::MemoryKindTitle(m.src[i]));
    if (m.dst[i] != model::MemoryKind::kUnknown)
      w.ArgString(ct::kArgDstKind, model::MemoryKindTitle(m.dst[i]));
    w.EndArgs();
    w.End();
  }
  const auto& a = t.api;
  std::unordered_map<uint64_t, const model::LaunchArgRow*> launch_args;
  for (const auto& l : t.launch_args) launch_args.emplace(l.correlation, &l);
  for (size_t i = 0; i < a.size(); ++i) {
    slice(a.domain[i] == model::ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", a, i);
    w.BeginArgs();
    if (a.correlation[i] != model::kNoCorrelation)
      w.ArgInt("correlation", static_cast<int64_t>(a.correlation[i]));
    if (a.external_id[i]) w.ArgInt("External id", static_cast<int64_t>(a.external_id[i]));
    if (a.domain[i] == model::ApiDomain::kHsa || a.domain[i] == model::ApiDomain::kOs) {
      w.ArgString(ct::kArgDomain, model::ApiDomainName(a.domain[i]));
    }
    if (auto l = launch_args.find(a.correlation[i]); l != launch_args.end()) {
      w.ArgString(ct::kArgKernel, t.str(l->second->kernel));
      w.ArgDims("grid", l->second->grid);
      w.ArgDims("block", l->second->block);
    }
    w.EndArgs();
    w.End();
  }
  const auto& c = t.cpu;
  for (size_t i = 0; i < c.size(); ++i) {
    slice(c.kind[i] == model::CpuRangeKind::kOp ? "cpu_op" : "user_annotation", c, i);
    if (c.external_id[i] || c.args[i]) {
      w.BeginArgs();
      if (c.external_id[i]) w.ArgInt("External id", static_cast<int64_t>(c.external_id[i]));
      if (c.args[i]) w.ArgMembers(t.str(c.args[i]));
      w.EndArgs();
    }
    w.End();
  }
  const auto& py = t.python;
  for (size_t i = 0; i < py.size(); ++i) {
    slice("python_function", py, i);
    w.BeginArgs();
    w.ArgInt("Python id", py.python_id[i]);
    w.ArgInt("Python parent id", py.python_parent_id[i]);
    w.EndArgs();
    w.End();
  }
  const auto& g = t.gpu_ranges;
  for (size_t i = 0; i < g.size(); ++i) {
    const TrackView& v = slice(g.kind[i] == model::GpuRangeKind::kAnnotation ? "gpu_user_annotation"
                               : g.kind[i] == model::GpuRangeKind::kSync     ? "cuda_sync"
                                                                         : ct::kCategoryGpuRange,
                               g, i);
    bool waits = g.waits_on_record[i] != model::kNoCorrelation;
    if (g.correlation[i] != model::kNoCorrelation || waits) {
      w.BeginArgs();
      if (waits) {  // the waiting stream's device and id, as Kineto gives them
        if (t.tracks[g.track[i]].device >= 0) w.ArgInt("device", t.tracks[g.track[i]].device);
        w.ArgInt("stream", v.tid);
      }
      if (g.correlation[i] != model::kNoCorrelation)
        w.ArgInt("correlation", static_cast<int64_t>(g.correlation[i]));
      if (waits) {  // Kineto's names: read back as the same recorded wait
        w.ArgInt("wait_on_cuda_event_record_corr_id", static_cast<int64_t>(g.waits_on_record[i]));
        w.ArgInt("wait_on_stream", g.waits_on_stream[i]);
      }
      w.EndArgs();
    }
    w.End();
  }
  for (size_t i = 0; i < t.instants.size(); ++i) {
    const TrackView& v = pt(t.instants.track[i]);
    w.Begin('i', "instant", t.str(t.instants.name[i]), v.pid, v.tid, t.instants.ts_ns[i]);
    w.Raw(",\"s\":\"t\"");
    w.End();
  }
  // Device allocator events as PyTorch writes them (Device Type 1: a GPU; Kineto reads back
  // any type above 0 as one).
  for (size_t i = 0; i < t.memory.size(); ++i) {
    const auto& mem = t.memory;
    const TrackView& v = pt(mem.track[i]);
    w.Begin('i', "cpu_instant_event", "[memory]", v.pid, v.tid, mem.ts_ns[i]);
    std::string args = ",\"s\":\"t\",\"args\":{\"Device Type\":1";
    auto arg = [&args](const char* key, int64_t value) {
      char buf[24];
      auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), value);
      args += ",\"";
      args += key;
      args += "\":";
      args.append(buf, p);
    };
    arg("Device Id", mem.device[i]);
    if (mem.addr[i] != 0) arg("Addr", static_cast<int64_t>(mem.addr[i]));
    arg("Bytes", mem.bytes[i]);
    if (mem.allocated[i] >= 0) arg("Total Allocated", mem.allocated[i]);
    if (mem.reserved[i] >= 0) arg("Total Reserved", mem.reserved[i]);
    args += '}';
    w.Raw(args);
    w.End();
  }
  // A counter series named "a.b" is written as event "a" with arg "b" (what Kineto writes and
  // gpuscope reads back as "a.b"); a name without a dot as event "x" with arg "x".
  for (size_t i = 0; i < t.counters.size(); ++i) {
    const TrackView& v = pt(t.counters.track[i]);
    std::string_view series = t.str(t.counters.name[i]);
    auto dot = series.rfind('.');
    std::string_view name = dot == std::string_view::npos ? series : series.substr(0, dot);
    std::string_view key = dot == std::string_view::npos ? series : series.substr(dot + 1);
    w.Begin('C', "counter", name, v.pid, v.tid, t.counters.ts_ns[i]);
    std::string value = ",\"args\":{";
    JsonWriter::Escape(value, key);
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), t.counters.value[i]);
    value += ':';
    value.append(buf, p);
    value += '}';
    w.Raw(value);
    w.End();
  }
  counts.events = k.size() + m.size() + a.size() + c.size() + py.size() + g.size() +
                  t.instants.size() + t.counters.size() + t.memory.size();

  // Flows: launch call -> GPU work. Ids are our own (one per pair), so a launch with several
  // ops (graph launches) gets one arrow per op.
  uint64_t flow = 0;
  auto arrow = [&](model::RowId launch, model::TrackId gpu_track, int64_t gpu_start) {
    if (launch == model::kNoRow || launch >= a.size()) return;
    ++flow;
    const TrackView& from = pt(a.track[launch]);
    const TrackView& to = pt(gpu_track);
    w.Begin('s', "ac2g", "ac2g", from.pid, from.tid, a.start_ns[launch]);
    w.Raw(",\"id\":" + std::to_string(flow));
    w.End();
    w.Begin('f', "ac2g", "ac2g", to.pid, to.tid, gpu_start);
    w.Raw(",\"id\":" + std::to_string(flow) + ",\"bp\":\"e\"");
    w.End();
  };
  for (size_t i = 0; i < k.size(); ++i) arrow(k.launch[i], k.track[i], k.start_ns[i]);
  for (size_t i = 0; i < m.size(); ++i) arrow(m.launch[i], m.track[i], m.start_ns[i]);
  counts.flows = flow;

  for (size_t r = 0; r < opt.rows.size(); ++r) {
    for (const MarkerSpan& s : opt.rows[r].spans) {
      w.Begin('X', opt.rows[r].category, s.name, layout.spare_pid, static_cast<int64_t>(r + 1),
              s.start_ns);
      w.Dur(s.dur_ns);
      if (!s.detail.empty()) {
        w.BeginArgs();
        w.ArgString("detail", s.detail);
        w.EndArgs();
      }
      w.End();
    }
  }
  out.Write("\n]}\n");
  GPUSCOPE_RETURN_IF_ERROR(out.Close());
  return counts;
}

}  // namespace gpuscope::output
