#pragma once
// WriteAnalysisJson: the JSON contract of `gpuscope analyze --format json` (summary, iterations,
// findings), written as one object into `w`; the HTML report embeds the same object.

#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "model/trace.h"
#include "output/json_writer.h"

namespace gpuscope::render {

// `iteration_list`: every iteration's number, start, duration (the HTML report bins them instead).
void WriteAnalysisJson(output::JsonWriter& w, const model::Trace& trace,
                       const analysis::AnalysisReport& report, const std::string& path,
                       bool iteration_list = true);

// The findings array: [{"rule", "severity", "title", "impact_ns", "impact_percent",
// "standalone_ns", "how_priced", "pricing", "where", "detail", "evidence", "advice"}] (analyze
// of one trace and of a job).
void WriteFindingsJson(output::JsonWriter& w, const std::vector<analysis::Finding>& findings);

// {"python", "op", "kernel"}: where a finding comes from (analyze, diff and the report).
void WriteWhere(output::JsonWriter& w, const analysis::Where& where);

// "phases": [{"name", "evidence", "steps", "warmup_steps", "latency_ns": {...}, "tokens_per_step",
// "tokens_per_second", "gpu_ns", "gpu_busy_pct", "top_kernels": [...]}] (analyze, stats, diff).
void WritePhasesJson(output::JsonWriter& w, const std::vector<analysis::PhaseSummary>& phases);

// {"mean", "median", "p95", "min", "max", "stddev"} in ns.
void WriteLatencyJson(output::JsonWriter& w, const analysis::LatencyStats& latency);

// An iteration's number, start and duration as members of the open object (analyze's
// iteration_list, info's iterations).
template <typename Iteration>
void WriteIterationTimes(output::JsonWriter& w, const Iteration& it) {
  w.Key("number").Int(it.number).Key("start_ns").Int(it.start_ns).Key("dur_ns").Int(it.dur_ns);
}

}  // namespace gpuscope::render
