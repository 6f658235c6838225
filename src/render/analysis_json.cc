#include "render/analysis_json.h"

#include "render/health_view.h"
#include "render/schema_version.h"
#include "render/source_json.h"
#include "render/stages_view.h"
#include "render/stats_tables.h"

namespace gpuscope::render {

void WriteWhere(output::JsonWriter& w, const analysis::Where& where) {
  w.BeginObject().Key("python").String(where.python).Key("op").String(where.op);
  w.Key("kernel").String(where.kernel).Key("graph").String(where.graph);
  w.Key("caller").String(where.caller).EndObject();
}

void WriteLatencyJson(output::JsonWriter& w, const analysis::LatencyStats& l) {
  w.BeginObject().Key("mean").Int(l.mean_ns).Key("median").Int(l.median_ns);
  w.Key("p95").Int(l.p95_ns).Key("min").Int(l.min_ns).Key("max").Int(l.max_ns);
  w.Key("stddev").Int(l.stddev_ns).EndObject();
}

void WritePhasesJson(output::JsonWriter& w, const std::vector<analysis::PhaseSummary>& phases) {
  w.Key("phases").BeginArray();
  for (const auto& p : phases) {
    w.BeginObject().Key("name").String(p.name).Key("evidence").String(p.evidence);
    w.Key("steps").Uint(p.steps).Key("warmup_steps").Uint(p.warmup).Key("latency_ns");
    WriteLatencyJson(w, p.latency);
    w.Key("tokens_per_step");
    w.IntIf(p.tokens_per_step >= 0, p.tokens_per_step);
    w.Key("tokens_per_second");
    w.DoubleIf(p.tokens_per_second >= 0, p.tokens_per_second);
    w.Key("gpu_ns").Int(p.gpu_ns).Key("gpu_busy_pct");
    w.DoubleIf(p.gpu_busy_pct >= 0, p.gpu_busy_pct);
    w.Key("top_kernels").BeginArray();
    for (const auto& [name, ns] : p.top_kernels)
      w.BeginObject().Key("name").String(name).Key("ns").Int(ns).EndObject();
    w.EndArray();
    w.Key("findings").BeginArray();
    for (const auto& f : p.findings) {
      w.BeginObject().Key("rule").String(f.rule).Key("impact_ns").Int(f.impact_ns);
      w.Key("impact_percent").Double(f.impact_percent).EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
}

namespace {

// The steady steps' latency and the kernel structure of the first one.
void LatencyAndStructureJson(output::JsonWriter& w, const analysis::SteadyState& st) {
  const auto& l = st.latency;
  w.Key("iteration_mean_ns").Int(l.mean_ns).Key("iteration_median_ns").Int(l.median_ns);
  w.Key("iteration_p95_ns").Int(l.p95_ns).Key("iteration_stddev_ns").Int(l.stddev_ns);
  w.Key("iteration_min_ns").Int(l.min_ns).Key("iteration_max_ns").Int(l.max_ns);
  w.Key("structure");
  if (st.structure.block)
    w.BeginObject()
        .Key("block_kernels")
        .Uint(st.structure.block)
        .Key("repeats")
        .Uint(st.structure.repeats)
        .Key("text")
        .String(st.structure.text())
        .EndObject();
  else
    w.Null();
}

// Graph launches and their attribution; the clock check per device.
void GraphsAndClocksJson(output::JsonWriter& w, const analysis::AnalysisReport& r) {
  const auto& g = r.graphs;
  w.Key("graphs").BeginObject().Key("launches").Uint(g.graph_launches);
  w.Key("kernels").Uint(g.graph_kernels).Key("matched").Uint(g.matched);
  w.Key("captures").Uint(g.captures).EndObject();
  w.Key("clocks").BeginArray();
  for (const auto& d : r.clocks.devices) {
    w.BeginObject().Key("device").Int(d.device).Key("verdict").String(
        analysis::ClockVerdictName(d.verdict));
    w.Key("explanation").String(d.explanation).Key("median_launch_to_start_ns").Int(d.median_ns);
    w.EndObject();
  }
  w.EndArray();
}

// The replay: observed against replayed, every fix combined, the critical path and its places.
void ReplayJson(output::JsonWriter& w, const analysis::AnalysisSummary& s) {
  w.Key("replay").BeginObject().Key("observed_ns").Int(s.observed_ns);
  w.Key("replayed_ns").Int(s.replayed_ns);
  w.Key("replay_error_percent").Double(s.replay_error_percent);
  w.Key("inferred_waits").Uint(s.inferred_waits).Key("inferred_polls").Uint(s.inferred_polls);
  w.Key("inferred_stream_waits").Uint(s.inferred_stream_waits);
  w.Key("recorded_stream_waits").Uint(s.recorded_stream_waits).EndObject();
  w.Key("combined")
      .BeginObject()
      .Key("window_ns")
      .Int(s.combined_ns)
      .Key("saving_ns")
      .Int(s.combined_saving_ns)
      .Key("saving_percent")
      // Of the window as the program ran it (the recording's parts done before it).
      .Double(s.combined_ns + s.combined_saving_ns > 0
                  ? 100.0 * static_cast<double>(s.combined_saving_ns) /
                        static_cast<double>(s.combined_ns + s.combined_saving_ns)
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
}

void IterationListJson(output::JsonWriter& w, const analysis::SteadyState& st) {
  w.Key("iteration_list").BeginArray();
  for (size_t i = 0; i < st.iterations.size(); ++i) {
    const auto& it = st.iterations[i];
    w.BeginObject();
    WriteIterationTimes(w, it);
    w.Key("warmup")
        .Bool(it.warmup || i < st.warmup)
        .Key("phase")
        .String(it.phase >= 0 ? st.phases[static_cast<size_t>(it.phase)].name : "")
        .EndObject();
  }
  w.EndArray();
}

void StallsJson(output::JsonWriter& w, const std::vector<analysis::Stall>& stalls) {
  w.Key("stalls").BeginArray();
  for (const auto& x : stalls) {
    w.BeginObject().Key("device").Int(x.device).Key("start_ns").Int(x.start_ns);
    w.Key("dur_ns").Int(x.dur_ns).Key("in_window").Bool(x.in_window);
    w.Key("one_time").String(x.one_time);
    w.Key("queued_ns").Int(x.queued_ns).Key("host").String(x.host).Key("where");
    WriteWhere(w, x.where);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteAnalysisJson(output::JsonWriter& w, const model::Trace& t,
                       const analysis::AnalysisReport& r, const std::string& path,
                       bool iteration_list) {
  const auto& s = r.summary;
  const auto& st = r.steady;
  BeginDocument(w);
  SourceJson(w, path, t.meta);
  HealthJson(w, r.health);
  w.Key("summary").BeginObject();
  w.Key("wall_ns").Int(s.wall_ns).Key("window_ns").Int(s.window_ns);
  w.Key("iteration_source").String(st.source);
  w.Key("iterations").Uint(st.iterations.empty() ? 0 : st.steady_count());
  w.Key("iterations_total").Uint(st.iterations.size()).Key("warmup_iterations").Uint(st.warmup);
  LatencyAndStructureJson(w, st);
  StagesJson(w.Key("stages"), st.stages);
  GraphsAndClocksJson(w, r);
  w.Key("gpu_busy_pct");
  w.DoubleIf(s.gpu_busy_pct >= 0, s.gpu_busy_pct);
  w.Key("host_wait_ns").Int(s.host_wait_ns).Key("gpu_work_ns").Int(s.gpu_work_ns);
  w.Key("devices").Int(s.devices).Key("kernel_ns").Int(s.kernel_ns);
  w.Key("memcpy_ns").Int(s.memcpy_ns).Key("api_ns").Int(s.api_ns);
  // The window the verdict and the findings are about: its steady part, one-time costs left out.
  w.Key("steady_part").BeginObject().Key("text").String(st.WindowText());
  w.Key("span_ns").Int(st.window_ns()).Key("steady_ns").Int(st.steady_ns());
  w.Key("one_time_ns").Int(st.one_time.ns).Key("one_time").BeginArray();
  for (const auto& k : st.one_time.Kinds()) {
    w.BeginObject().Key("what").String(k.what).Key("ns").Int(k.ns).Key("count").Uint(k.n);
    w.EndObject();
  }
  w.EndArray().EndObject();
  w.Key("verdict").String(s.verdict);
  w.Key("verdict_kind").String(analysis::VerdictKindName(s.verdict_kind));
  w.Key("host_pinning").String(s.host_pinning);
  w.Key("idle_by_cause").BeginArray();
  for (const auto& c : s.idle) {
    w.BeginObject().Key("cause").String(c.cause).Key("ns").Int(c.ns).Key("gaps").Uint(c.gaps);
    w.EndObject();
  }
  w.EndArray();
  CategoryTable(s.categories).Json(w.Key("categories"));
  ReplayJson(w, s);
  if (iteration_list) IterationListJson(w, st);
  w.EndObject();
  WritePhasesJson(w, r.phases);
  StallsJson(w, r.stalls);
  WriteFindingsJson(w.Key("findings"), r.findings);
  w.EndObject();
}

void WriteFindingsJson(output::JsonWriter& w, const std::vector<analysis::Finding>& findings) {
  w.BeginArray();
  for (const auto& f : findings) {
    w.BeginObject().Key("rule").String(f.rule);
    w.Key("severity").String(analysis::SeverityName(f.severity)).Key("title").String(f.title);
    w.Key("impact_ns").Int(f.impact_ns).Key("impact_percent").Double(f.impact_percent);
    w.Key("standalone_ns").Int(f.standalone_ns);
    w.Key("standalone_percent").Double(f.standalone_percent).Key("priced_after").BeginArray();
    for (int n : f.priced_after) w.Int(n);
    w.EndArray().Key("how_priced").String(f.fix);
    w.Key("pricing").BeginObject().Key("baseline_ns").Int(f.baseline_ns);
    w.Key("fixed_ns").Int(f.fixed_ns).Key("changes").String(f.changes);
    w.Key("edits_remove_ns").Int(f.edits_remove_ns).EndObject();
    WriteWhere(w.Key("where"), f.where);
    w.Key("detail").String(f.detail);
    w.Key("evidence").BeginArray();
    for (const auto& e : f.evidence) {
      w.BeginObject().Key("start_ns").Int(e.start_ns).Key("dur_ns").Int(e.dur_ns);
      w.Key("iteration").Int(e.iteration).Key("what").String(e.what).EndObject();
    }
    w.EndArray();
    w.Key("advice").String(f.advice).EndObject();
  }
  w.EndArray();
}

}  // namespace gpuscope::render
