#include "render/report_data.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/replay/replay_graph.h"
#include "analysis/roofline/roofline.h"
#include "analysis/stats/stats.h"
#include "analysis/steps/representative_iteration.h"
#include "analysis/timeline/memory_timeline.h"
#include "base/short_name.h"
#include "base/shown_name.h"
#include "output/json_writer.h"
#include "output/track_layout.h"
#include "render/analysis_json.h"
#include "render/job_view.h"
#include "render/roofline_view.h"

namespace gpuscope::render {
namespace {

using output::JsonWriter;

// Timeline event categories, as the page's script knows them (same order).
enum Cat : int { kKernel, kMemcpy, kMemset, kApi, kCpuOp, kAnnotation, kPython };

struct TimelineEvent {
  model::TrackId track;
  int64_t start, dur;
  model::StringId name;
  int cat;
  model::RowId row;  // row in its table (links)
};

// The events of [lo, hi) on every track, the longest kMaxTimelineEvents of them (`total`: how
// many there were), by track and start.
std::vector<TimelineEvent> TimelineEvents(const model::Trace& t, int64_t lo, int64_t hi,
                                          size_t& total) {
  std::vector<TimelineEvent> ev;
  auto collect = [&](const model::SliceColumns& s, auto cat_of) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.start_ns[i] < hi && s.end_ns(i) > lo) {
        ev.push_back({s.track[i], s.start_ns[i], s.dur_ns[i], s.name[i], cat_of(i),
                      static_cast<model::RowId>(i)});
      }
    }
  };
  collect(t.kernels, [](size_t) { return int{kKernel}; });
  collect(t.memops, [&](size_t i) {
    return t.memops.kind[i] == model::MemopKind::kMemset ? int{kMemset} : int{kMemcpy};
  });
  collect(t.api, [](size_t) { return int{kApi}; });
  collect(t.cpu, [&](size_t i) {
    return t.cpu.kind[i] == model::CpuRangeKind::kOp ? int{kCpuOp} : int{kAnnotation};
  });
  collect(t.python, [](size_t) { return int{kPython}; });
  total = ev.size();
  if (ev.size() > kMaxTimelineEvents) {
    // Keep the longest events: what is left out is shorter than anything shown.
    std::nth_element(ev.begin(), ev.begin() + kMaxTimelineEvents, ev.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) { return a.dur > b.dur; });
    ev.resize(kMaxTimelineEvents);
  }
  std::sort(ev.begin(), ev.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return a.track != b.track   ? a.track < b.track
           : a.start != b.start ? a.start < b.start
                                : a.dur > b.dur;
  });
  return ev;
}

// The critical path of the steady window inside [lo, hi): [track index (-1: a row not shown),
// start, duration, category index], stretches first to last (ReplayGraph), and the categories.
void WriteTimelinePath(JsonWriter& w, const model::Trace& t, const analysis::SteadyState& ss,
                       int64_t lo, int64_t hi,
                       const std::unordered_map<model::TrackId, size_t>& track_index) {
  analysis::ReplayGraph graph(t, ss.start_ns, ss.end_ns);
  std::vector<std::string_view> categories;
  std::unordered_map<std::string_view, size_t> category_index;
  w.Key("critical_path").BeginArray();
  size_t kept = 0;
  for (const analysis::PathSegment& s : graph.CriticalSegments()) {
    if (s.end_ns <= lo || s.start_ns >= hi || kept >= kMaxTimelineEvents) continue;
    auto [ci, fresh] = category_index.emplace(s.category, categories.size());
    if (fresh) categories.push_back(s.category);
    auto tr = track_index.find(s.track);
    int64_t a = std::max(s.start_ns, lo), b = std::min(s.end_ns, hi);
    w.BeginArray()
        .Int(tr == track_index.end() ? -1 : static_cast<int64_t>(tr->second))
        .Int(a - lo)
        .Int(b - a)
        .Uint(ci->second)
        .EndArray();
    ++kept;
  }
  w.EndArray();
  w.Key("path_categories").BeginArray();
  for (std::string_view c : categories) w.String(c);
  w.EndArray();
}

void WriteTimeline(JsonWriter& w, const model::Trace& t, const analysis::SteadyState& ss) {
  const analysis::RepresentativeWindow window = analysis::PickRepresentativeIteration(ss);
  const int64_t number = window.iteration, lo = window.start_ns, hi = window.end_ns;
  size_t total = 0;
  std::vector<TimelineEvent> ev = TimelineEvents(t, lo, hi, total);
  // Tracks that have events, in viewer order (host first, then GPUs).
  const output::TrackLayout layout = output::LayoutTracks(t);
  std::vector<model::TrackId> tracks;
  for (const auto& e : ev) {
    if (tracks.empty() || tracks.back() != e.track) tracks.push_back(e.track);
  }
  std::sort(tracks.begin(), tracks.end());
  tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());
  std::sort(tracks.begin(), tracks.end(), [&](model::TrackId a, model::TrackId b) {
    const auto &x = layout.tracks[a], &y = layout.tracks[b];
    return std::tie(x.process_order, x.pid, x.thread_order, x.tid) <
           std::tie(y.process_order, y.pid, y.thread_order, y.tid);
  });
  std::unordered_map<model::TrackId, size_t> track_index;
  for (size_t i = 0; i < tracks.size(); ++i) track_index[tracks[i]] = i;

  w.Key("timeline").BeginObject();
  w.Key("iteration").Int(number).Key("start_ns").Int(lo).Key("end_ns").Int(hi);
  w.Key("events_in_window").Uint(total).Key("events_shown").Uint(ev.size());
  w.Key("tracks").BeginArray();
  for (model::TrackId id : tracks) {
    const auto& v = layout.tracks[id];
    w.BeginObject().Key("process").String(v.process).Key("thread").String(v.thread);
    w.Key("gpu").Bool(t.tracks[id].kind == model::TrackKind::kGpuStream).EndObject();
  }
  w.EndArray();
  std::unordered_map<model::StringId, size_t> name_index;
  std::vector<model::StringId> names;
  std::unordered_map<model::RowId, size_t> api_event;  // api row -> event index
  w.Key("events").BeginArray();
  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    auto [it, inserted] = name_index.emplace(e.name, names.size());
    if (inserted) names.push_back(e.name);
    if (e.cat == kApi) api_event[e.row] = i;
    w.BeginArray()
        .Uint(track_index[e.track])
        .Int(e.start - lo)
        .Int(e.dur)
        .Uint(it->second)
        .Int(e.cat)
        .EndArray();
  }
  w.EndArray();
  w.Key("names").BeginArray();
  size_t name_bytes = 0;
  for (model::StringId n : names) {
    // Names are shortened to kMaxTimelineName, and to 40 once kMaxTimelineNameBytes are spent
    // (thousands of distinct long names must not blow up the page).
    size_t cap = name_bytes > kMaxTimelineNameBytes ? 40 : kMaxTimelineName;
    std::string shown = base::ShortenName(base::ShownName(t.str(n)), cap);
    name_bytes += shown.size();
    w.String(shown);
  }
  w.EndArray();
  WriteTimelinePath(w, t, ss, lo, hi, track_index);
  w.Key("links").BeginArray();
  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    model::RowId launch = e.cat == kKernel                       ? t.kernels.launch[e.row]
                          : e.cat == kMemcpy || e.cat == kMemset ? t.memops.launch[e.row]
                                                                 : model::kNoRow;
    if (launch == model::kNoRow) continue;
    auto a = api_event.find(launch);
    if (a != api_event.end()) w.BeginArray().Uint(a->second).Uint(i).EndArray();
  }
  w.EndArray();
  w.EndObject();
}

void WriteKernels(JsonWriter& w, const analysis::Stats& st) {
  w.Key("kernels").BeginObject();
  w.Key("total_ns").Int(st.kernel_total_ns).Key("distinct").Uint(st.kernels.size());
  w.Key("top").BeginArray();
  uint64_t other_calls = 0;
  int64_t other_ns = 0;
  for (size_t i = 0; i < st.kernels.size(); ++i) {
    const auto& k = st.kernels[i];
    if (i >= kTopKernels) {
      other_calls += k.calls, other_ns += k.total_ns;
      continue;
    }
    w.BeginObject().Key("name").String(base::ShownName(k.name)).Key("calls").Uint(k.calls);
    w.Key("shown").String(base::ShortenName(base::ShownName(k.name), kChartName));
    w.Key("total_ns").Int(k.total_ns).Key("avg_ns").Int(k.avg_ns).Key("percent").Double(k.percent);
    w.EndObject();
  }
  w.EndArray();
  w.Key("other_calls").Uint(other_calls).Key("other_ns").Int(other_ns);
  w.EndObject();
  w.Key("copies").BeginArray();
  for (const auto& m : st.memops) {
    w.BeginObject().Key("kind").String(model::MemopKindName(m.kind)).Key("calls").Uint(m.calls);
    w.Key("bytes");
    w.IntIf(m.calls_unknown_bytes != m.calls, m.bytes);
    w.Key("total_ns").Int(m.total_ns).Key("pageable").Uint(m.pageable).Key("pinned").Uint(m.pinned);
    w.Key("host_unknown").Uint(m.host_unknown).EndObject();
  }
  w.EndArray();
}

// The findings' where and evidence as the page shows them (base/short_name.h's rule; the page
// keeps the whole names in tooltips).
void WriteShownFindings(JsonWriter& w, const std::vector<analysis::Finding>& findings) {
  w.Key("findings_shown").BeginArray();
  for (const auto& f : findings) {
    std::string where;
    for (const std::string* part : {&f.where.python, &f.where.op, &f.where.kernel})
      if (!part->empty())
        where += (where.empty() ? "" : "  \u203a  ") + base::ShortenName(*part, kChartName * 2);
    w.BeginObject().Key("where").String(where).Key("evidence").BeginArray();
    for (const auto& e : f.evidence) w.String(base::FoldNamesInText(e.what, kEvidenceLine));
    w.EndArray().EndObject();
  }
  w.EndArray();
}

// Iterations for the latency chart; binned (min / mean / max per bin) above kMaxIterations.
// The roofline of the steady window: the device and its peaks, and the hottest op signatures
// (kMaxRooflineOps) for the chart.
void WriteRoofline(JsonWriter& w, const model::Trace& t, const analysis::AnalysisReport& report,
                   const analysis::AnalyzeOptions& options) {
  analysis::RooflineOptions ro;
  ro.device = options.device;
  ro.window_start = report.steady.start_ns, ro.window_end = report.steady.end_ns;
  analysis::RooflineReport r = analysis::ComputeRoofline(t, ro, &report.graphs);
  w.Key("roofline").BeginObject();
  w.Key("device");
  WriteRooflineDevice(w, r.device);
  w.Key("kernel_ns").Int(r.kernel_ns).Key("modelled_ns").Int(r.modelled_ns);
  w.Key("ops").BeginArray();
  for (size_t i = 0; i < r.ops.size() && i < kMaxRooflineOps; ++i) {
    const auto& o = r.ops[i];
    w.BeginObject().Key("op").String(o.op).Key("shape").String(o.shape).Key("dtype").String(
        o.dtype);
    w.Key("calls").Uint(o.calls).Key("gpu_ns").Int(o.gpu_ns).Key("flops").Double(o.flops);
    w.Key("bytes")
        .Double(o.bytes)
        .Key("intensity")
        .Double(o.intensity)
        .Key("tflops")
        .Double(o.tflops);
    w.Key("tbps").Double(o.tbps).Key("bound").String(o.bound).Key("percent_of_bound");
    w.DoubleIf(o.percent_of_bound >= 0, o.percent_of_bound);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ops_total").Uint(r.ops.size());
  w.EndObject();
}

void WriteIterationChart(JsonWriter& w, const analysis::SteadyState& ss) {
  const auto& its = ss.iterations;
  size_t per_bin =
      its.size() <= kMaxIterations ? 1 : (its.size() + kMaxIterations - 1) / kMaxIterations;
  w.Key("iteration_chart").BeginObject().Key("per_bar").Uint(per_bin).Key("bars").BeginArray();
  for (size_t i = 0; i < its.size(); i += per_bin) {
    size_t end = std::min(its.size(), i + per_bin);
    int64_t lo = its[i].dur_ns, hi = its[i].dur_ns, sum = 0;
    for (size_t j = i; j < end; ++j) {
      lo = std::min(lo, its[j].dur_ns), hi = std::max(hi, its[j].dur_ns), sum += its[j].dur_ns;
    }
    w.BeginArray()
        .Int(its[i].number)
        .Int(sum / static_cast<int64_t>(end - i))
        .Int(lo)
        .Int(hi)
        .Bool(i < ss.warmup)
        .EndArray();
  }
  w.EndArray().EndObject();
}

// "memory": {"devices": [{"device", "peak_allocated_bytes", "peak_at_ns", "totals_recorded",
// "points": [[ns from the trace's start, allocated, reserved or -1], ...]}]}.
void WriteMemoryChart(JsonWriter& w, const model::Trace& t, const analysis::SteadyState& steady) {
  analysis::MemoryTimeline m = analysis::BuildMemoryTimeline(t, steady, 1);
  const int64_t origin = t.TimeSpan().first;
  w.Key("memory").BeginObject().Key("devices").BeginArray();
  for (const auto& d : m.devices) {
    w.BeginObject().Key("device").Int(d.device);
    w.Key("peak_allocated_bytes").Int(d.peak_allocated_bytes);
    w.Key("peak_at_ns").Int(d.peak_at_ns - origin);
    w.Key("totals_recorded").Bool(d.totals_recorded);
    w.Key("points").BeginArray();
    for (const auto& p : d.series) {
      w.BeginArray().Int(p.ts_ns - origin).Int(p.allocated_bytes).Int(p.reserved_bytes).EndArray();
    }
    w.EndArray().EndObject();
  }
  w.EndArray().EndObject();
}

}  // namespace

std::string ReportDataJson(const model::Trace& t, const std::string& path,
                           const analysis::AnalyzeOptions& options, const ReportJob* job) {
  analysis::AnalysisReport report = analysis::Analyze(t, options);
  analysis::Stats st = analysis::ComputeStats(t, {});
  JsonWriter w(false);
  w.BeginObject();
  w.Key("generator").String("gpuscope 0.1.0");
  w.Key("trace").BeginObject().Key("path").String(path).Key("format").String(t.meta.format);
  w.Key("format_version").String(t.meta.format_version).Key("producer").String(t.meta.producer);
  w.Key("counts").BeginObject().Key("kernels").Uint(t.kernels.size());
  w.Key("copies").Uint(t.memops.size()).Key("api").Uint(t.api.size());
  w.Key("cpu_ranges").Uint(t.cpu.size()).Key("python").Uint(t.python.size()).EndObject();
  w.Key("devices").BeginArray();
  for (const auto& d : t.devices) w.String(d.name);
  w.EndArray();
  w.EndObject();
  w.Key("analysis");
  WriteAnalysisJson(w, t, report, path, /*iteration_list=*/false);
  WriteKernels(w, st);
  WriteShownFindings(w, report.findings);
  WriteIterationChart(w, report.steady);
  WriteRoofline(w, t, report, options);
  WriteTimeline(w, t, report.steady);
  WriteMemoryChart(w, t, report.steady);
  if (job && job->report) {
    w.Key("job");
    WriteJobJson(w, *job->report, {job->path, false, true});
    w.Key("detailed_rank").Int(job->detailed_rank);
  }
  w.EndObject();
  return w.str();
}

}  // namespace gpuscope::render
