#include "import/kineto/kineto_builder.h"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_set>

#include "base/numbers.h"
#include "format/chrome_trace.h"
#include "import/kineto/kineto_categories.h"
#include "model/merge.h"
#include "model/op_args.h"

namespace gpuscope::import::kineto {

using model::ApiDomain;
using model::CpuRangeKind;
using model::GpuRangeKind;
using model::MemopKind;
using model::MemoryKind;
using model::TrackKind;

using namespace events;  // NOLINT: what an event is, from its category and name

namespace {

// A row's slice fields: its time, interned name and track.
template <typename Row>
Row SliceRow(model::Trace& t, const KinetoEvent& ev, int64_t ts, int64_t dur,
             model::TrackId track) {
  return model::MakeSlice<Row>(ts, dur, t.strings.Intern(ev.name), track);
}

}  // namespace

void KinetoBuilder::Problem(model::ProblemKind kind, uint64_t offset, std::string_view what) {
  trace_->problems.Add(kind, "event at byte " + std::to_string(offset) + ": " + std::string(what));
}

model::TrackId KinetoBuilder::TrackCache::Get(model::Trace& trace, model::TrackKind kind,
                                              std::string_view pid, std::string_view tid) {
  std::string_view k(key);
  if (valid && k.size() == pid.size() + tid.size() + 1 && k.substr(0, pid.size()) == pid &&
      k.substr(pid.size() + 1) == tid) {
    return id;
  }
  id = trace.InternTrack(kind, pid, tid);
  key.assign(pid).push_back('\x1f');
  key.append(tid);
  valid = true;
  return id;
}

model::TrackId KinetoBuilder::CpuTrack(const KinetoEvent& ev) {
  return cpu_cache_.Get(*trace_, TrackKind::kCpuThread, ev.pid, ev.tid);
}

void KinetoBuilder::AddCpuRange(const KinetoEvent& ev, int64_t ts, int64_t dur, bool op) {
  model::Trace& t = *trace_;
  auto row = SliceRow<model::CpuRangeRow>(t, ev, ts, dur, CpuTrack(ev));
  row.external_id = ev.external_id;
  row.kind = op ? CpuRangeKind::kOp : CpuRangeKind::kAnnotation;
  // The collective's description only on ops that name their collective.
  std::span<const model::RawArg> collective(ev.collective.data(), ev.collective_count);
  bool names_collective = false;
  for (const auto& a : collective) names_collective |= a.key == model::kArgCollectiveName;
  if (names_collective) {
    row.args = t.strings.Intern(
        model::EncodeOpArgs(ev.input_dims, ev.input_types, ev.concrete_inputs, collective));
  } else if (!ev.input_dims.empty() || !ev.input_types.empty() || !ev.concrete_inputs.empty()) {
    row.args = op_args_.Get(t.strings, ev.input_dims, ev.input_types, ev.concrete_inputs);
  }
  t.cpu.Append(row);
}

template <typename Row>
Row KinetoBuilder::GpuRow(const KinetoEvent& ev, int64_t ts, int64_t dur) {
  auto row = SliceRow<Row>(*trace_, ev, ts, dur, GpuTrack(ev));
  row.correlation = ev.correlation;
  row.device = static_cast<int16_t>(ev.device >= 0 ? ev.device : trace_->tracks[row.track].pid);
  return row;
}

model::TrackId KinetoBuilder::GpuTrack(const KinetoEvent& ev) {
  return gpu_cache_.Get(*trace_, TrackKind::kGpuStream, ev.pid, ev.tid);
}

std::optional<int64_t> KinetoBuilder::PointTime(const KinetoEvent& ev, uint64_t offset,
                                                std::string_view kind) {
  auto ts = base::ParseMicrosToNs(ev.ts, ns_digits_);
  if (ts) return ts->ns;
  Problem(model::ProblemKind::kKinetoBadTs, offset,
          std::string(kind) + " event without a numeric 'ts'; skipped");
  return std::nullopt;
}

void KinetoBuilder::ReserveScaled(double factor) { model::ReserveScaled(*trace_, factor); }

void KinetoBuilder::AddInvalid(uint64_t offset, std::string_view what) {
  ++events_;
  Problem(model::ProblemKind::kKinetoInvalidEvent, offset,
          std::string(what) + "; skipped to the next event");
}

void KinetoBuilder::Add(const KinetoEvent& ev, uint64_t offset) {
  ++events_;
  if (!ev.bad_field.empty()) {
    std::string what(ev.bad_field);  // (built in steps: GCC 12 -Wrestrict misfires on "'" + s)
    what.insert(0, 1, '\'');
    what += "' has a value of the wrong type; event skipped";
    Problem(model::ProblemKind::kKinetoBadField, offset, what);
    return;
  }
  if (ev.bad_arg) {
    Problem(model::ProblemKind::kKinetoBadArgValue, offset,
            "arg '" + std::string(ev.bad_arg_key) + "' has a value of the wrong type; ignored");
  }
  switch (ev.ph) {
    case 'X': {
      if (ev.ts.empty()) {
        Problem(model::ProblemKind::kKinetoEventMissingTs, offset,
                "complete event without 'ts'; skipped");
        return;
      }
      auto ts = ev.ts_is_string ? std::nullopt : base::ParseMicrosToNs(ev.ts, ns_digits_);
      if (!ts) {
        Problem(model::ProblemKind::kKinetoBadTs, offset, "'ts' is not a number; event skipped");
        return;
      }
      int64_t dur = 0;
      if (ev.dur.empty()) {
        Problem(model::ProblemKind::kKinetoEventMissingDur, offset,
                "complete event without 'dur'; kept with duration 0");
      } else if (auto d =
                     ev.dur_is_string ? std::nullopt : base::ParseMicrosToNs(ev.dur, ns_digits_)) {
        dur = d->ns;
        if (d->decimals > side_->max_decimals) side_->max_decimals = d->decimals;
        if (dur < 0) {
          Problem(model::ProblemKind::kKinetoNegativeDur, offset,
                  "negative 'dur'; kept with duration 0");
          dur = 0;
        }
      } else {
        Problem(model::ProblemKind::kKinetoBadDur, offset,
                "'dur' is not a number; kept with duration 0");
      }
      if (ts->decimals > side_->max_decimals) side_->max_decimals = ts->decimals;
      if (ts->rounded) ++side_->rounded_ts;
      ++side_->timed_events;
      if (ts->ns == 0 && dur == 0) ++side_->zero_ts_events;
      AddSlice(ev, ts->ns, dur);
      return;
    }
    case 'M':
      AddMetadata(ev);
      return;
    case 'i':
    case 'I': {
      auto ts = PointTime(ev, offset, "instant");
      if (!ts) return;
      if (ev.name == "[memory]" && AddMemoryEvent(ev, *ts)) return;
      trace_->instants.Append(*ts, trace_->strings.Intern(ev.name), CpuTrack(ev));
      return;
    }
    case 'C':
      if (auto ts = PointTime(ev, offset, "counter")) AddCounter(ev, *ts);
      return;
    case 's':
    case 'f':
    case 't': {
      auto id = base::ParseUint64(ev.id);
      if (!id) {
        ++trace_->record_counts["flow events without a numeric id"];
        return;
      }
      (ev.ph == 's' ? side_->flow_starts : side_->flow_ends).push_back(*id);
      return;
    }
    default:
      Problem(model::ProblemKind::kKinetoUnsupportedPhase, offset,
              std::string("event phase '") +
                  (ev.ph ? std::string(1, ev.ph) : std::string("(none)")) +
                  "' is not read by gpuscope; skipped");
      return;
  }
}

void KinetoBuilder::AddSlice(const KinetoEvent& ev, int64_t ts, int64_t dur) {
  bool legacy = false;
  Category cat = Classify(ev.cat, &legacy);
  side_->saw_legacy_categories |= legacy;
  model::Trace& t = *trace_;
  switch (cat) {
    case Category::kKernel: {
      auto row = GpuRow<model::KernelRow>(ev, ts, dur);
      for (int i = 0; i < 3; ++i) row.grid[i] = ev.grid[i], row.block[i] = ev.block[i];
      row.registers = ev.registers;
      row.shared_mem = ev.shared_mem;
      row.flags = model::KernelWorkFlags(ev.name);
      t.kernels.Append(row);
      return;
    }
    case Category::kMemcpy:
    case Category::kMemset: {
      auto row = GpuRow<model::MemopRow>(ev, ts, dur);
      row.bytes = ev.bytes;
      ParseMemopName(ev.name, cat == Category::kMemset, &row);
      ApplyExportedCopyArgs(ev, &row);
      t.memops.Append(row);
      return;
    }
    case Category::kRuntime:
    case Category::kDriver: {
      auto row = SliceRow<model::ApiRow>(t, ev, ts, dur, CpuTrack(ev));
      row.correlation = ev.correlation;
      row.external_id = ev.external_id;
      row.domain = cat == Category::kDriver ? ApiDomain::kDriver : ApiDomain::kRuntime;
      if (!ev.domain.empty()) model::ParseApiDomain(ev.domain, &row.domain);
      if (!ev.kernel.empty() && ev.has_correlation) {
        model::LaunchArgRow l;
        l.correlation = ev.correlation;
        l.kernel = t.strings.Intern(ev.kernel);
        for (int i = 0; i < 3; ++i) l.grid[i] = ev.grid[i], l.block[i] = ev.block[i];
        t.launch_args.push_back(l);
      }
      if (ev.name.substr(0, 3) == "hip") side_->saw_hip_runtime = true;
      if (ev.name.substr(0, 4) == "cuda" || ev.name.substr(0, 2) == "cu")
        side_->saw_cuda_runtime = true;
      t.api.Append(row);
      return;
    }
    case Category::kCpuOp:
    case Category::kAnnotation:
      AddCpuRange(ev, ts, dur, cat == Category::kCpuOp);
      return;
    case Category::kPython: {
      auto row = SliceRow<model::PythonFrameRow>(t, ev, ts, dur, CpuTrack(ev));
      row.python_id = ev.python_id;
      row.python_parent_id = ev.python_parent_id;
      t.python.Append(row);
      return;
    }
    case Category::kGpuAnnotation:
    case Category::kSync:
    case Category::kGpuOther: {
      auto row = SliceRow<model::GpuRangeRow>(t, ev, ts, dur, GpuTrack(ev));
      row.correlation = ev.correlation;
      if (cat == Category::kSync && ev.wait_on_record >= 0 && ev.wait_on_stream >= 0) {
        row.waits_on_record = static_cast<uint64_t>(ev.wait_on_record);
        row.waits_on_stream = ev.wait_on_stream;
      }
      row.kind = cat == Category::kSync       ? GpuRangeKind::kSync
                 : cat == Category::kGpuOther ? GpuRangeKind::kOther
                                              : GpuRangeKind::kAnnotation;
      t.gpu_ranges.Append(row);
      return;
    }
    case Category::kOverhead:
      ++t.record_counts["profiler overhead ranges (not modelled)"];
      t.meta.AddOverhead(dur);
      return;
    case Category::kSpan:
      ++t.record_counts["profiler spans (not modelled)"];
      return;
    case Category::kDerivedMarker:
      ++t.record_counts["rows derived by gpuscope (iterations, annotations; skipped)"];
      return;
    case Category::kUnknown:
      ++t.record_counts["category '" + std::string(ev.cat) + "' (not modelled)"];
      return;
  }
}

void KinetoBuilder::AddMetadata(const KinetoEvent& ev) {
  ++trace_->record_counts["metadata records"];
  if (ev.name != "thread_name" && ev.name != "process_name") return;
  if (!ev.args_begin) return;
  // args is {"name": "..."}: re-read it from the kept span.
  JsonCursor c(ev.args_begin, ev.args_end);
  std::deque<std::string> arena;
  std::string value;
  bool generated = false;  // a label gpuscope's export made up for viewers, not a name
  ForEachScalarMember(c, &arena, [&](std::string_view key, std::string_view v, bool) {
    if (key == "name") value.assign(v);
    if (key == format::chrome_trace::kArgGenerated && v == "true") generated = true;
  });
  if (generated) return;
  if (ev.name == "process_name") {
    if (!side_->process_names.emplace(std::string(ev.pid), value).second) {
      ++side_->metadata_duplicates;
    }
  } else {
    auto key = std::make_pair(std::string(ev.pid), std::string(ev.tid));
    if (!side_->thread_names.emplace(std::move(key), value).second) ++side_->metadata_duplicates;
  }
}

bool KinetoBuilder::AddMemoryEvent(const KinetoEvent& ev, int64_t ts) {
  if (!ev.args_begin) return false;
  JsonCursor c(ev.args_begin, ev.args_end);
  std::deque<std::string> arena;
  model::MemoryEventRow r;
  int64_t device_type = -1;
  bool has_bytes = false;
  ForEachScalarMember(c, &arena, [&](std::string_view key, std::string_view v, bool is_string) {
    if (is_string) return;
    auto n = base::ParseInt64(v);
    if (!n) return;
    if (key == "Device Type") {
      device_type = *n;
    } else if (key == "Device Id") {
      r.device = static_cast<int16_t>(std::clamp<int64_t>(*n, -1, INT16_MAX));
    } else if (key == "Bytes") {
      r.bytes = *n, has_bytes = true;
    } else if (key == "Total Allocated") {
      r.allocated = *n;
    } else if (key == "Total Reserved") {
      r.reserved = *n;
    } else if (key == "Addr") {
      r.addr = static_cast<uint64_t>(*n);
    }
  });
  // Host memory (Device Type 0) stays an instant: the timeline is the GPU's.
  if (device_type <= 0 || r.device < 0 || !has_bytes) return false;
  r.ts_ns = ts, r.track = CpuTrack(ev);
  trace_->memory.Append(r);
  return true;
}

void KinetoBuilder::AddCounter(const KinetoEvent& ev, int64_t ts) {
  if (!ev.args_begin) return;
  JsonCursor c(ev.args_begin, ev.args_end);
  std::deque<std::string> arena;
  model::TrackId track = CpuTrack(ev);
  // A damaged args object keeps the series read before the damage.
  ForEachScalarMember(c, &arena, [&](std::string_view key, std::string_view v, bool is_string) {
    auto value = is_string ? std::nullopt : base::ParseDouble(v);
    if (!value) return;
    // {"name": "x", "args": {"x": v}} is the series "x" (how gpuscope writes a dotless name).
    std::string series(ev.name);
    if (key != ev.name) {
      series += '.';
      series += key;
    }
    trace_->counters.Append(ts, *value, trace_->strings.Intern(series), track);
  });
}

}  // namespace gpuscope::import::kineto
