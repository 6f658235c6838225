#include "import/common/rocm_chrome_json.h"

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/numbers.h"
#include "import/common/json_walker.h"
#include "import/common/rocm_row_builder.h"

namespace gpuscope::import::rocm {
namespace {

struct JsonEvent {
  std::string ph, name, pid, tid, ts, dur, begin, end, dev, queue, os_pid, os_tid, args, id, desc;
};

// The members kept of an event and of its args, each into a JsonEvent string (read as text,
// numbers included; parsed once the event is whole).
using MemberField = std::pair<std::string_view, std::string JsonEvent::*>;
constexpr MemberField kEventFields[] = {{"ph", &JsonEvent::ph},   {"name", &JsonEvent::name},
                                        {"pid", &JsonEvent::pid}, {"tid", &JsonEvent::tid},
                                        {"ts", &JsonEvent::ts},   {"dur", &JsonEvent::dur},
                                        {"id", &JsonEvent::id}};
constexpr MemberField kArgFields[] = {
    {"BeginNs", &JsonEvent::begin},  {"EndNs", &JsonEvent::end},  {"dev-id", &JsonEvent::dev},
    {"queue-id", &JsonEvent::queue}, {"pid", &JsonEvent::os_pid}, {"tid", &JsonEvent::os_tid},
    {"args", &JsonEvent::args},      {"desc", &JsonEvent::desc}};

// Reads the member named `key` into its field, or skips it when `fields` has none.
bool ReadField(JsonWalker& w, std::span<const MemberField> fields, std::string_view key,
               JsonEvent* e) {
  for (const auto& [name, member] : fields) {
    if (key == name) return w.Str(&(e->*member));
  }
  return w.Skip();
}

bool ReadEvent(JsonWalker& w, JsonEvent* e) {
  return w.Object([&](std::string_view k) {
    if (k != "args") return ReadField(w, kEventFields, k, e);
    char c = 0;
    if (!w.Peek(&c)) return false;
    if (c != '{') return w.Skip();
    return w.Object([&](std::string_view a) {
      if (a == "name" && e->ph == "M") return w.Str(&e->args);  // process_name value
      return ReadField(w, kArgFields, a, e);
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
    case 0:
      return Lane::kMarkers;
    case 1:
      return Lane::kCopy;
    case 2:
      return Lane::kHip;
    case 3:
      return Lane::kHsa;
    default:
      return pid >= 518 ? Lane::kBarriers : pid >= 6 ? Lane::kGpu : Lane::kOther;
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

}  // namespace

namespace {

// The events of the document, read one by one so that a truncated file or a fragment keeps its
// whole events; `closed`: the event list ended; `error`: where and why it did not.
std::vector<JsonEvent> ReadEvents(const std::string& doc, size_t size, bool* closed,
                                  std::string* error) {
  size_t p = doc.find("\"traceEvents\"");
  if (p != std::string::npos) {
    p = doc.find('[', p) + 1;
  } else {  // a bare array, or a fragment that starts inside it
    p = doc.find_first_not_of(" \t\r\n");
    p = p == std::string::npos ? 0 : p + (doc[p] == '[' ? 1 : 0);
  }
  JsonWalker w(doc.data() + p, doc.data() + size);
  std::vector<JsonEvent> events;
  for (;;) {
    char c = 0;
    if (!w.Peek(&c)) break;
    if (c == ',') {
      if (!w.Consume(',')) break;
      continue;
    }
    if (c == ']') {
      *closed = true;
      break;
    }
    JsonEvent e;
    if (!ReadEvent(w, &e)) break;
    if (!e.ph.empty()) events.push_back(std::move(e));
  }
  if (!*closed) {
    *error = "the event list is cut at byte " + std::to_string(p + w.error_offset()) +
             " (a truncated file or a fragment): " + w.error();
  }
  return events;
}

}  // namespace

base::StatusOr<ImportResult> ReadRocmChromeJson(const std::string& path, ChromeJsonFlavor flavor) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  std::string doc, chunk(1 << 20, '\0');
  for (long long n; (n = src->Read(chunk.data(), chunk.size())) > 0;)
    doc.append(chunk.data(), static_cast<size_t>(n));
  size_t size = doc.size();
  doc.append(kJsonPadding, '\0');
  ImportResult result;
  Trace& trace = result.trace;
  if (flavor == ChromeJsonFlavor::kRocprof) {
    InitLegacyMeta(trace, path, "results.json (Chrome trace, string ts)");
  } else {
    InitLegacyMeta(trace, path, "rpd2tracing.py Chrome trace (us strings)");
    trace.meta.producer = "rocmProfileData rpd2tracing.py";
    trace.meta.clock = "CLOCK_MONOTONIC (us resolution)";
  }
  bool closed = false;
  std::vector<JsonEvent> events = ReadEvents(doc, size, &closed, &trace.meta.import_error);
  std::map<std::string, std::string> process_names;
  for (const auto& e : events) {
    if (e.ph == "M" && e.name == "process_name") process_names[e.pid] = e.args;
  }
  RocmRowBuilder b(&trace);
  // Flows pair each API call ("s": at the call's midpoint for rocprof, its start for
  // rpd2tracing) with its op ("t"/"f": at the op's start). Indexed by thread, sorted by time.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, uint64_t>>>
      flow_start, flow_end;
  for (const auto& e : events) {
    if (e.ph != "s" && e.ph != "t" && e.ph != "f") continue;
    auto ts_ns = base::ParseMicrosToNs(e.ts);
    auto id = base::ParseInt64(e.id);
    if (!ts_ns || !id) continue;
    (e.ph == "s" ? flow_start : flow_end)[{e.pid, e.tid}].emplace_back(
        ts_ns->ns / 1000, static_cast<uint64_t>(*id) + 1);
  }
  for (auto* flows : {&flow_start, &flow_end}) {
    for (auto& [k, v] : *flows) std::sort(v.begin(), v.end());
  }
  // The flow on the event's thread inside [begin, end] (us), or at its begin when !contains.
  auto corr_for = [](const auto& flows, const JsonEvent& e, int64_t begin, int64_t end,
                     bool contains) -> uint64_t {
    auto it = flows.find({e.pid, e.tid});
    if (it == flows.end()) return model::kNoCorrelation;
    int64_t b_us = begin / 1000, e_us = contains ? end / 1000 : b_us;
    auto f =
        std::lower_bound(it->second.begin(), it->second.end(), std::make_pair(b_us, uint64_t{0}));
    return f != it->second.end() && f->first <= e_us ? f->second : model::kNoCorrelation;
  };
  for (const auto& e : events) {
    if (e.ph != "X") continue;
    int64_t begin = 0, end = 0;
    if (!EventTimes(e, &begin, &end)) {
      trace.problems.Add(model::ProblemKind::kRocprofJsonBadTs,
                         "event '" + e.name + "' has no usable BeginNs/EndNs or ts; skipped");
      continue;
    }
    auto it = process_names.find(e.pid);
    std::string process = it == process_names.end() ? std::string() : it->second;
    if (flavor == ChromeJsonFlavor::kRpd2Tracing) {
      // Ops live on "GPU<n>" processes (tid = queue); everything else is an API call.
      if (process.rfind("GPU", 0) == 0) {
        int64_t gpu = Num(std::string_view(process).substr(3));
        std::string_view type =
            e.desc.empty() ? std::string_view(e.name) : std::string_view(e.desc);
        OpClass cls = ClassifyOp(type);
        uint64_t corr = corr_for(flow_end, e, begin, end, true);
        if (cls == OpClass::kCopy || cls == OpClass::kFill)
          b.Op(begin, end, gpu, e.tid, type, corr);
        else
          b.Kernel(begin, end, gpu, e.tid, e.name, corr);
      } else if (IsRpdOverheadApi(e.name)) {
        ++trace.record_counts["rpd tracer overhead rows (left out)"];
      } else {
        b.Api(begin, end, e.pid, e.tid, e.name, corr_for(flow_start, e, begin, end, true), {},
              false);
      }
      continue;
    }
    Lane lane = LaneOf(process, Num(e.pid));
    switch (lane) {
      case Lane::kHip:
      case Lane::kHsa:
        b.Api(begin, end, e.os_pid.empty() ? e.pid : e.os_pid, e.os_tid.empty() ? e.tid : e.os_tid,
              e.name, corr_for(flow_start, e, begin, end, true), e.args, lane == Lane::kHsa);
        break;
      case Lane::kCopy:
      case Lane::kGpu:
        b.Op(begin, end, Num(e.dev), e.queue, e.name, corr_for(flow_end, e, begin, end, false));
        break;
      case Lane::kMarkers:
        b.Marker(begin, end, e.os_pid.empty() ? e.pid : e.os_pid,
                 e.os_tid.empty() ? e.tid : e.os_tid, e.name);
        break;
      case Lane::kBarriers:
        ++trace.record_counts["GPU barrier packets"];
        break;
      case Lane::kOther:
        ++trace.record_counts["events of unknown rocprof lanes"];
        break;
    }
  }
  return FinishLegacy(result, b,
                      closed ? "the JSON trace holds no timed events"
                             : "a fragment of a JSON trace with no whole timed event (" +
                                   std::to_string(events.size()) + " metadata records)" +
                                   (flavor == ChromeJsonFlavor::kRocprof
                                        ? "; use results.db or results.csv from the same run"
                                        : ""));
}

}  // namespace gpuscope::import::rocm
