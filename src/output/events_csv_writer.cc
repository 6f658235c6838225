#include "output/events_csv_writer.h"

#include <charconv>
#include <string>

#include "format/events_csv.h"
#include "output/csv_writer.h"
#include "output/track_layout.h"

namespace gpuscope::output {
namespace {

using namespace format::events_csv;  // the column names and positions (format/events_csv.h)
constexpr int kColumns = kColumnCount;
// One row: fields set by column, the rest left empty.
class Row {
 public:
  void Set(Column c, std::string_view v) { f_[c].assign(v); }
  void Int(Column c, int64_t v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    f_[c].assign(buf, p);
  }
  void Dims(Column c, const model::Dim3& d) {
    f_[c] = std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
  }
  void Emit(base::ByteSink& out) {
    line_.clear();
    for (int i = 0; i < kColumns; ++i) {
      if (i) line_ += ',';
      CsvWriter::AppendField(line_, f_[i]);
      f_[i].clear();
    }
    line_ += '\n';
    out.Write(line_);
  }

 private:
  std::string f_[kColumns];
  std::string line_;
};

}  // namespace

base::StatusOr<uint64_t> WriteEventsCsv(const model::Trace& t, base::ByteSink& out) {
  const TrackLayout layout = LayoutTracks(t);
  std::string header;
  for (std::string_view name : kColumnNames) {
    if (!header.empty()) header += ',';
    header.append(name);
  }
  out.Write(header + "\n");
  Row r;
  uint64_t rows = 0;
  auto common = [&](std::string_view kind, model::StringId name, int64_t start, int64_t dur,
                    model::TrackId track) {
    const TrackView& v = layout.tracks[track];
    r.Set(kKind, kind);
    r.Set(kName, t.str(name));
    r.Int(kStart, start);
    r.Int(kDur, dur);
    r.Int(kPid, v.pid);
    r.Int(kTid, v.tid);
    ++rows;
  };
  auto corr = [&](uint64_t c) {
    if (c != model::kNoCorrelation) r.Int(kCorrelation, static_cast<int64_t>(c));
  };
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    common("kernel", k.name[i], k.start_ns[i], k.dur_ns[i], k.track[i]);
    if (k.device[i] >= 0) r.Int(kDevice, k.device[i]);
    r.Int(kStream, layout.tracks[k.track[i]].tid);
    corr(k.correlation[i]);
    r.Dims(kGrid, k.grid[i]);
    r.Dims(kBlock, k.block[i]);
    r.Emit(out);
  }
  const auto& m = t.memops;
  for (size_t i = 0; i < m.size(); ++i) {
    common(m.kind[i] == model::MemopKind::kMemset ? "memset" : "memcpy", m.name[i], m.start_ns[i],
           m.dur_ns[i], m.track[i]);
    if (m.device[i] >= 0) r.Int(kDevice, m.device[i]);
    r.Int(kStream, layout.tracks[m.track[i]].tid);
    corr(m.correlation[i]);
    if (m.bytes[i] >= 0) r.Int(kBytes, m.bytes[i]);
    r.Set(kCopyKind, model::MemopKindName(m.kind[i]));
    r.Set(kSrcKind, model::MemoryKindTitle(m.src[i]));
    r.Set(kDstKind, model::MemoryKindTitle(m.dst[i]));
    r.Emit(out);
  }
  const auto& a = t.api;
  for (size_t i = 0; i < a.size(); ++i) {
    common("api", a.name[i], a.start_ns[i], a.dur_ns[i], a.track[i]);
    corr(a.correlation[i]);
    if (a.external_id[i]) r.Int(kExternalId, static_cast<int64_t>(a.external_id[i]));
    r.Set(kDomain, model::ApiDomainName(a.domain[i]));
    r.Emit(out);
  }
  const auto& c = t.cpu;
  for (size_t i = 0; i < c.size(); ++i) {
    common(c.kind[i] == model::CpuRangeKind::kOp ? "cpu_op" : "annotation", c.name[i],
           c.start_ns[i], c.dur_ns[i], c.track[i]);
    if (c.external_id[i]) r.Int(kExternalId, static_cast<int64_t>(c.external_id[i]));
    r.Emit(out);
  }
  const auto& p = t.python;
  for (size_t i = 0; i < p.size(); ++i) {
    common("python", p.name[i], p.start_ns[i], p.dur_ns[i], p.track[i]);
    r.Int(kPythonId, p.python_id[i]);
    r.Int(kPythonParentId, p.python_parent_id[i]);
    r.Emit(out);
  }
  const auto& g = t.gpu_ranges;
  for (size_t i = 0; i < g.size(); ++i) {
    common(g.kind[i] == model::GpuRangeKind::kAnnotation ? "gpu_annotation"
           : g.kind[i] == model::GpuRangeKind::kSync     ? "gpu_sync"
                                                         : "gpu_range",
           g.name[i], g.start_ns[i], g.dur_ns[i], g.track[i]);
    r.Int(kStream, layout.tracks[g.track[i]].tid);
    corr(g.correlation[i]);
    r.Emit(out);
  }
  for (size_t i = 0; i < t.instants.size(); ++i) {
    common("instant", t.instants.name[i], t.instants.ts_ns[i], 0, t.instants.track[i]);
    r.Emit(out);
  }
  for (size_t i = 0; i < t.counters.size(); ++i) {
    common("counter", t.counters.name[i], t.counters.ts_ns[i], 0, t.counters.track[i]);
    char buf[32];
    auto [e, ec] = std::to_chars(buf, buf + sizeof(buf), t.counters.value[i]);
    r.Set(kValue, std::string_view(buf, static_cast<size_t>(e - buf)));
    r.Emit(out);
  }
  const auto& mem = t.memory;
  for (size_t i = 0; i < mem.size(); ++i) {
    common("memory", 0, mem.ts_ns[i], 0, mem.track[i]);
    r.Set(kName, "[memory]");
    r.Int(kDevice, mem.device[i]);
    r.Int(kBytes, mem.bytes[i]);
    if (mem.allocated[i] >= 0) r.Int(kAllocated, mem.allocated[i]);
    if (mem.reserved[i] >= 0) r.Int(kReserved, mem.reserved[i]);
    if (mem.addr[i] != 0) {
      char buf[24];
      auto [e, ec] = std::to_chars(buf, buf + sizeof(buf), mem.addr[i]);
      r.Set(kAddr, std::string_view(buf, static_cast<size_t>(e - buf)));
    }
    r.Emit(out);
  }
  GPUSCOPE_RETURN_IF_ERROR(out.Close());
  return rows;
}

}  // namespace gpuscope::output
