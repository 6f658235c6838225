// the events.csv that `gpuscope convert -o dir/` (or `-o x.csv`) writes, one
// row per event (columns in src/output/events_csv_writer.h), read back by column name - so a
// table filtered or edited in pandas or a spreadsheet can be analysed again. Given the
// directory, the registry reads its events.csv.

#include <string>

#include "base/numbers.h"
#include "format/events_csv.h"
#include "import/common/csv_reader.h"
#include "import/formats.h"

namespace gpuscope::import::gpuscope_csv {
namespace {

using model::TrackKind;

class Reader {
 public:
  Reader(const CsvHeader& header, model::Trace* t) : h_(header), t_(*t) {
    using namespace format::events_csv;
    for (auto [field, col] : {std::pair{&c_.kind, kKind},
                              {&c_.name, kName},
                              {&c_.start, kStart},
                              {&c_.dur, kDur},
                              {&c_.pid, kPid},
                              {&c_.tid, kTid},
                              {&c_.device, kDevice},
                              {&c_.corr, kCorrelation},
                              {&c_.ext, kExternalId},
                              {&c_.bytes, kBytes},
                              {&c_.copy, kCopyKind},
                              {&c_.src, kSrcKind},
                              {&c_.dst, kDstKind},
                              {&c_.grid, kGrid},
                              {&c_.block, kBlock},
                              {&c_.domain, kDomain},
                              {&c_.py_id, kPythonId},
                              {&c_.py_parent, kPythonParentId},
                              {&c_.value, kValue},
                              {&c_.allocated, kAllocated},
                              {&c_.reserved, kReserved},
                              {&c_.addr, kAddr}}) {
      *field = h_[kColumnNames[col]];
    }
  }

  // Adds one row; an unusable row is skipped and counted as a problem.
  void Row(const std::vector<std::string_view>& r, uint64_t line) {
    std::string_view kind = Field(r, c_.kind);
    auto start = base::ParseInt64(Field(r, c_.start));
    auto dur = base::ParseInt64(Field(r, c_.dur));
    if (!start || !dur || *dur < 0) {
      Problem(model::ProblemKind::kEventsCsvBadTime, line,
              "start_ns/dur_ns not integers >= 0; row skipped");
      return;
    }
    model::StringId name = t_.strings.Intern(Field(r, c_.name));
    std::string_view pid = Field(r, c_.pid), tid = Field(r, c_.tid);
    auto opt_int = [&](int col, int64_t fallback) {
      return base::ParseInt64(Field(r, col)).value_or(fallback);
    };
    auto corr = static_cast<uint64_t>(opt_int(c_.corr, 0));
    if (kind == "kernel") {
      model::KernelRow k;
      k.start_ns = *start, k.dur_ns = *dur, k.name = name, k.correlation = corr;
      k.track = t_.InternTrack(TrackKind::kGpuStream, pid, tid);
      k.device = static_cast<int16_t>(opt_int(c_.device, t_.tracks[k.track].device));
      if (!Dims(Field(r, c_.grid), &k.grid) || !Dims(Field(r, c_.block), &k.block)) {
        Problem(model::ProblemKind::kEventsCsvBadDims, line,
                "grid/block not \"x,y,z\"; kept as unknown");
      }
      k.flags = model::KernelWorkFlags(t_.str(name));
      t_.kernels.Append(k);
    } else if (kind == "memcpy" || kind == "memset") {
      model::MemopRow m;
      m.start_ns = *start, m.dur_ns = *dur, m.name = name, m.correlation = corr;
      m.track = t_.InternTrack(TrackKind::kGpuStream, pid, tid);
      m.device = static_cast<int16_t>(opt_int(c_.device, t_.tracks[m.track].device));
      m.bytes = opt_int(c_.bytes, -1);
      m.kind = kind == "memset" ? model::MemopKind::kMemset : model::MemopKind::kOther;
      model::ParseMemopKind(Field(r, c_.copy), &m.kind);
      m.src = model::ParseMemoryKind(Field(r, c_.src));
      m.dst = model::ParseMemoryKind(Field(r, c_.dst));
      t_.memops.Append(m);
    } else if (kind == "api") {
      model::ApiRow a;
      a.start_ns = *start, a.dur_ns = *dur, a.name = name, a.correlation = corr;
      a.external_id = static_cast<uint64_t>(opt_int(c_.ext, 0));
      a.track = t_.InternTrack(TrackKind::kCpuThread, pid, tid);
      model::ParseApiDomain(Field(r, c_.domain), &a.domain);
      t_.api.Append(a);
    } else if (kind == "cpu_op" || kind == "annotation") {
      model::CpuRangeRow c;
      c.start_ns = *start, c.dur_ns = *dur, c.name = name;
      c.external_id = static_cast<uint64_t>(opt_int(c_.ext, 0));
      c.track = t_.InternTrack(TrackKind::kCpuThread, pid, tid);
      c.kind = kind == "cpu_op" ? model::CpuRangeKind::kOp : model::CpuRangeKind::kAnnotation;
      t_.cpu.Append(c);
    } else if (kind == "python") {
      model::PythonFrameRow p;
      p.start_ns = *start, p.dur_ns = *dur, p.name = name;
      p.python_id = opt_int(c_.py_id, -1), p.python_parent_id = opt_int(c_.py_parent, -1);
      p.track = t_.InternTrack(TrackKind::kCpuThread, pid, tid);
      t_.python.Append(p);
    } else if (kind == "gpu_annotation" || kind == "gpu_sync" || kind == "gpu_range") {
      model::GpuRangeRow g;
      g.start_ns = *start, g.dur_ns = *dur, g.name = name, g.correlation = corr;
      g.track = t_.InternTrack(TrackKind::kGpuStream, pid, tid);
      g.kind = kind == "gpu_annotation" ? model::GpuRangeKind::kAnnotation
               : kind == "gpu_sync"     ? model::GpuRangeKind::kSync
                                        : model::GpuRangeKind::kOther;
      t_.gpu_ranges.Append(g);
    } else if (kind == "instant") {
      t_.instants.Append(*start, name, t_.InternTrack(TrackKind::kCpuThread, pid, tid));
    } else if (kind == "memory") {
      model::MemoryEventRow m;
      auto bytes = base::ParseInt64(Field(r, c_.bytes));
      if (!bytes) {
        Problem(model::ProblemKind::kEventsCsvBadValue, line,
                "memory event without integer bytes; row skipped");
        return;
      }
      m.ts_ns = *start, m.bytes = *bytes;
      m.device = static_cast<int16_t>(opt_int(c_.device, -1));
      m.allocated = opt_int(c_.allocated, -1), m.reserved = opt_int(c_.reserved, -1);
      m.addr = base::ParseUint64(Field(r, c_.addr)).value_or(0);
      m.track = t_.InternTrack(TrackKind::kCpuThread, pid, tid);
      t_.memory.Append(m);
    } else if (kind == "counter") {
      auto v = base::ParseDouble(Field(r, c_.value));
      if (!v) {
        Problem(model::ProblemKind::kEventsCsvBadValue, line,
                "counter without a numeric value; row skipped");
        return;
      }
      t_.counters.Append(*start, *v, name, t_.InternTrack(TrackKind::kOther, pid, tid));
    } else {
      Problem(model::ProblemKind::kEventsCsvUnknownKind, line,
              "kind '" + std::string(kind) + "' is not one gpuscope writes; row skipped");
    }
  }

 private:
  struct Columns {
    int kind, name, start, dur, pid, tid, device, corr, ext, bytes, copy, src, dst, grid, block,
        domain, py_id, py_parent, value, allocated, reserved, addr;
  };

  // "x,y,z" (empty = unknown, all 0).
  static bool Dims(std::string_view text, model::Dim3* out) {
    if (text.empty()) return true;
    for (int i = 0; i < 3; ++i) {
      auto comma = text.find(',');
      auto v = base::ParseUint64(text.substr(0, comma));
      if (!v) return false;
      (*out)[i] = static_cast<uint32_t>(*v);
      if (i < 2 && comma == std::string_view::npos) return false;
      text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return true;
  }

  void Problem(model::ProblemKind kind, uint64_t line, const std::string& what) {
    t_.problems.Add(kind, "line " + std::to_string(line) + ": " + what);
  }

  CsvHeader h_;
  model::Trace& t_;
  Columns c_{};
};

}  // namespace

bool RecognizesEventsCsv(const base::FileSniff& sniff) {
  return sniff.head.rfind(format::events_csv::kSignature, 0) == 0;
}

base::StatusOr<ImportResult> ReadEventsCsv(const std::string& path, const ImportOptions&) {
  ImportResult result;
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, OpenCsv(path, "events.csv", &result.trace.problems));
  const CsvHeader& header = file.header;
  // The columns this reader needs; the others are optional (absent = not recorded).
  for (auto required : format::events_csv::kRequired) {
    std::string_view col = format::events_csv::kColumnNames[required];
    if (!header.Has(col)) {
      return base::Status::Error(path + ": events.csv without the column '" + std::string(col) +
                                 "'; write it with gpuscope convert -o dir/");
    }
  }
  model::Trace& trace = result.trace;
  trace.meta.path = path;
  trace.meta.format_version = "events.csv";
  trace.meta.producer = "gpuscope convert (CSV)";
  trace.meta.clock = "the source's clock, as written (ns)";
  Reader reader(header, &trace);
  CsvReader& csv = file.reader;
  std::vector<std::string_view> fields;
  while (csv.Next(&fields)) reader.Row(fields, csv.line());
  if (!csv.error().empty()) {
    if (trace.EventCount() == 0) return base::Status::Error(path + ": " + csv.error());
    trace.meta.import_error = csv.error();
  }
  result.empty_reason = "events.csv holds no events";
  return result;
}

}  // namespace gpuscope::import::gpuscope_csv
