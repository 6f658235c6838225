#include "output/chrome_trace_writer.h"

#include <algorithm>
#include <limits>
#include <set>

#include "format/chrome_trace.h"
#include "format/written_by.h"
#include "output/chrome_event_writer.h"
#include "output/chrome_trace_events.h"
#include "output/json_writer.h"
#include "output/track_layout.h"

namespace gpuscope::output {
namespace {

using model::Trace;
namespace ct = format::chrome_trace;
using namespace chrome_internal;  // NOLINT: the writer's parts

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
    src += ",\"" + std::string(ct::kKeySourceProducer) + "\":";
    JsonWriter::Escape(src, t.meta.producer);
    src += ",\"" + std::string(ct::kKeyWrittenBy) + "\":";
    JsonWriter::Escape(src, format::ExportedBy(t.meta.properties));
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
  // In this order: a reader of the file sees the tables as gpuscope lists them.
  counts.events = WriteGpuOps(w, t, layout);
  counts.events += WriteHostEvents(w, t, layout);
  counts.events += WriteGpuRanges(w, t, layout);
  counts.events += WriteSamples(w, t, layout);
  counts.flows = WriteFlows(w, t, layout);

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
