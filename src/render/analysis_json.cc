#include "render/analysis_json.h"

namespace gpuscope::render {

void WriteWhere(output::JsonWriter& w, const analysis::Where& where) {
  w.BeginObject().Key("python").String(where.python).Key("op").String(where.op);
  w.Key("kernel").String(where.kernel).EndObject();
}

void WriteAnalysisJson(output::JsonWriter& w, const model::Trace& t,
                       const analysis::AnalysisReport& r, const std::string& path,
                       bool iteration_list) {
  const auto& s = r.summary;
  const auto& st = r.steady;
  w.BeginObject();
  w.Key("source")
      .BeginObject()
      .Key("path")
      .String(path)
      .Key("format")
      .String(t.meta.format)
      .EndObject();
  w.Key("summary").BeginObject();
  w.Key("wall_ns").Int(s.wall_ns).Key("window_ns").Int(s.window_ns);
  w.Key("iteration_source").String(st.source);
  w.Key("iterations").Uint(st.iterations.empty() ? 0 : st.steady_count());
  w.Key("iterations_total").Uint(st.iterations.size()).Key("warmup_iterations").Uint(st.warmup);
  const auto& l = st.latency;
  w.Key("iteration_mean_ns")
      .Int(l.mean_ns)
      .Key("iteration_median_ns")
      .Int(l.median_ns)
      .Key("iteration_p95_ns")
      .Int(l.p95_ns)
      .Key("iteration_stddev_ns")
      .Int(l.stddev_ns)
      .Key("iteration_min_ns")
      .Int(l.min_ns)
      .Key("iteration_max_ns")
      .Int(l.max_ns);
  w.Key("gpu_busy_pct");
  if (s.gpu_busy_pct < 0)
    w.Null();
  else
    w.Double(s.gpu_busy_pct);
  w.Key("devices")
      .Int(s.devices)
      .Key("kernel_ns")
      .Int(s.kernel_ns)
      .Key("memcpy_ns")
      .Int(s.memcpy_ns)
      .Key("api_ns")
      .Int(s.api_ns);
  w.Key("verdict").String(s.verdict).Key("host_pinning").String(s.host_pinning);
  w.Key("idle_by_cause").BeginArray();
  for (const auto& c : s.idle)
    w.BeginObject()
        .Key("cause")
        .String(c.cause)
        .Key("ns")
        .Int(c.ns)
        .Key("gaps")
        .Uint(c.gaps)
        .EndObject();
  w.EndArray();
  w.Key("replay")
      .BeginObject()
      .Key("observed_ns")
      .Int(s.observed_ns)
      .Key("replayed_ns")
      .Int(s.replayed_ns)
      .Key("replay_error_percent")
      .Double(s.replay_error_percent)
      .Key("inferred_waits")
      .Uint(s.inferred_waits)
      .Key("inferred_stream_waits")
      .Uint(s.inferred_stream_waits)
      .EndObject();
  w.Key("combined")
      .BeginObject()
      .Key("window_ns")
      .Int(s.combined_ns)
      .Key("saving_ns")
      .Int(s.combined_saving_ns)
      .Key("saving_percent")
      .Double(s.replayed_ns > 0 ? 100.0 * static_cast<double>(s.combined_saving_ns) /
                                      static_cast<double>(s.replayed_ns)
                                : 0)
      .EndObject();
  int64_t path_ns = 0;
  for (const auto& p : s.critical_path) path_ns += p.ns;
  auto pct = [&](int64_t ns) {
    return path_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(path_ns) : 0.0;
  };
  w.Key("critical_path").BeginArray();
  for (const auto& p : s.critical_path) {
    w.BeginObject().Key("category").String(p.category).Key("ns").Int(p.ns);
    w.Key("percent").Double(pct(p.ns)).EndObject();
  }
  w.EndArray();
  w.Key("critical_places").BeginArray();
  for (const auto& p : s.critical_places) {
    w.BeginObject().Key("category").String(p.category).Key("name").String(p.name);
    w.Key("ns").Int(p.ns).Key("percent").Double(pct(p.ns)).EndObject();
  }
  w.EndArray();
  if (iteration_list) w.Key("iteration_list").BeginArray();
  for (size_t i = 0; iteration_list && i < st.iterations.size(); ++i) {
    const auto& it = st.iterations[i];
    w.BeginObject()
        .Key("number")
        .Int(it.number)
        .Key("start_ns")
        .Int(it.start_ns)
        .Key("dur_ns")
        .Int(it.dur_ns)
        .Key("warmup")
        .Bool(i < st.warmup)
        .EndObject();
  }
  if (iteration_list) w.EndArray();
  w.EndObject();
  w.Key("findings").BeginArray();
  for (const auto& f : r.findings) {
    w.BeginObject()
        .Key("rule")
        .String(f.rule)
        .Key("severity")
        .String(f.severity)
        .Key("title")
        .String(f.title)
        .Key("impact_ns")
        .Int(f.impact_ns)
        .Key("impact_percent")
        .Double(f.impact_percent)
        .Key("standalone_ns")
        .Int(f.standalone_ns)
        .Key("how_priced")
        .String(f.fix);
    w.Key("pricing")
        .BeginObject()
        .Key("baseline_ns")
        .Int(f.baseline_ns)
        .Key("fixed_ns")
        .Int(f.fixed_ns)
        .Key("changes")
        .String(f.changes)
        .EndObject();
    WriteWhere(w.Key("where"), f.where);
    w.Key("detail").String(f.detail);
    w.Key("evidence").BeginArray();
    for (const auto& e : f.evidence) {
      w.BeginObject()
          .Key("start_ns")
          .Int(e.start_ns)
          .Key("dur_ns")
          .Int(e.dur_ns)
          .Key("iteration")
          .Int(e.iteration)
          .Key("what")
          .String(e.what)
          .EndObject();
    }
    w.EndArray();
    w.Key("advice").String(f.advice).EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace gpuscope::render
