#include "output/chrome_trace_events.h"

#include <charconv>
#include <string>
#include <unordered_map>

#include "format/chrome_trace.h"

namespace gpuscope::output::chrome_internal {
namespace {

namespace ct = format::chrome_trace;
using model::Trace;

// The head of one complete ("X") event for row i of a table; returns the row's track view.
class Slices {
 public:
  Slices(EventWriter& w, const Trace& t, const TrackLayout& layout) : w_(w), t_(t), l_(layout) {}
  const TrackView& operator()(std::string_view cat, const model::SliceColumns& s, size_t i) const {
    const TrackView& v = l_.tracks[s.track[i]];
    w_.Begin('X', cat, t_.str(s.name[i]), v.pid, v.tid, s.start_ns[i]);
    w_.Dur(s.dur_ns[i]);
    return v;
  }

 private:
  EventWriter& w_;
  const Trace& t_;
  const TrackLayout& l_;
};

std::string_view MemopCategory(model::MemopKind k) {
  return k == model::MemopKind::kMemset ? "gpu_memset" : "gpu_memcpy";
}

}  // namespace

size_t WriteGpuOps(EventWriter& w, const Trace& t, const TrackLayout& layout) {
  const Slices slice(w, t, layout);
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
  return k.size() + m.size();
}

size_t WriteHostEvents(EventWriter& w, const Trace& t, const TrackLayout& layout) {
  const Slices slice(w, t, layout);
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
  return a.size() + c.size() + py.size();
}

size_t WriteGpuRanges(EventWriter& w, const Trace& t, const TrackLayout& layout) {
  const Slices slice(w, t, layout);
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
  return g.size();
}

size_t WriteSamples(EventWriter& w, const Trace& t, const TrackLayout& layout) {
  auto pt = [&](model::TrackId track) -> const TrackView& { return layout.tracks[track]; };
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
  return t.instants.size() + t.memory.size() + t.counters.size();
}

uint64_t WriteFlows(EventWriter& w, const Trace& t, const TrackLayout& layout) {
  auto pt = [&](model::TrackId track) -> const TrackView& { return layout.tracks[track]; };
  const auto& a = t.api;
  const auto& k = t.kernels;
  const auto& m = t.memops;
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
  return flow;
}

}  // namespace gpuscope::output::chrome_internal
