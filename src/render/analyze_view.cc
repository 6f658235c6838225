#include "render/analyze_view.h"

#include <cstdio>

#include "base/short_name.h"
#include "base/text.h"
#include "output/json_writer.h"
#include "output/text_table.h"
#include "render/analysis_json.h"
#include "render/health_view.h"
#include "render/python_place.h"
#include "render/result_table.h"
#include "render/stages_view.h"
#include "render/stats_tables.h"

namespace gpuscope::render {
namespace {

std::string Rel(int64_t ns, int64_t origin) {
  std::string out = "+";  // built in steps: GCC 12 misreads "+" + string (-Wrestrict)
  out += base::FormatDuration(ns - origin);
  return out;
}

std::string WhereText(const analysis::Where& w, size_t width, bool full) {
  std::string out;
  auto add = [&](const std::string& s) {
    if (s.empty()) return;
    out += (out.empty() ? "" : "  >  ") + (full ? s : base::ShortenName(s, width));
  };
  add(PythonPlace(w.python));  // its caller on a line of its own (CallerLine)
  add(w.op);
  add(w.kernel);
  if (!w.graph.empty()) out += "  [" + w.graph + "]";
  return out.empty() ? "(not attributed: no op, Python frame or kernel recorded around it)" : out;
}

// "              called from `main`, defined at line 27\n" under a where line whose Python frame's
// caller the trace records ("" otherwise): on a line of its own, so that neither is cut.
std::string CallerLine(const analysis::Where& w, size_t width, bool full) {
  const std::string alone = PythonPlace(w.python), with = PythonPlace(w.python, w.caller);
  if (w.caller.empty() || with.size() <= alone.size() + 2) return "";
  const std::string called = with.substr(alone.size() + 2);  // past ", "
  return "              " + (full ? called : base::ShortenName(called, width)) + "\n";
}

// One row per phase of a serving trace.
std::string PhasesText(const std::vector<analysis::PhaseSummary>& phases, size_t width) {
  if (phases.empty()) return "";
  output::TextTable table;
  using A = output::TextTable::Align;
  for (const char* h :
       {"Phase", "Steps", "Warm-up", "Median", "p95", "Tokens/step", "Tokens/s", "GPU busy"})
    table.AddColumn(h, std::string_view(h) == "Phase" ? A::kLeft : A::kRight);
  table.AddColumn("Top kernel", A::kLeft, true);
  for (const auto& p : phases) {
    std::string top =
        p.top_kernels.empty() ? std::string("-") : base::ShortenName(p.top_kernels[0].first, 48);
    table.AddRow(
        {p.name, base::FormatCount(p.steps), base::FormatCount(p.warmup),
         base::FormatDuration(p.latency.median_ns), base::FormatDuration(p.latency.p95_ns),
         p.tokens_per_step >= 0 ? base::FormatCount(static_cast<uint64_t>(p.tokens_per_step))
                                : std::string("-"),
         p.tokens_per_second >= 0 ? base::FormatFixed(p.tokens_per_second, 0) : std::string("-"),
         p.gpu_busy_pct >= 0 ? base::FormatFixed(p.gpu_busy_pct, 1) + "%" : std::string("-"), top});
  }
  std::string out =
      "\nPhases (steps classified by " + phases[0].evidence + ")\n" + table.Render(width, true);
  for (const auto& p : phases) {
    if (p.findings.empty()) continue;
    std::string line;
    for (size_t k = 0; k < p.findings.size() && k < 4; ++k)
      line += (k ? ", " : "") + p.findings[k].rule + " saves " +
              base::FormatDuration(p.findings[k].impact_ns) + " (" +
              base::FormatFixed(p.findings[k].impact_percent, 1) + "% of them)";
    out += "  in " + p.name + " steps: " + line + "\n";
  }
  return out;
}

// The largest GPU idle intervals of the whole trace, in or out of the window.
std::string StallsText(const std::vector<analysis::Stall>& stalls, int64_t origin, size_t width,
                       bool full) {
  if (stalls.empty()) return "";
  std::string out = "\nLargest GPU stalls (whole trace, in or out of the steady window)\n";
  for (const auto& s : stalls) {
    out += base::StrFormat("  at %s, %s idle on GPU %d (%s)\n", Rel(s.start_ns, origin).c_str(),
                           base::FormatDuration(s.dur_ns).c_str(), s.device,
                           !s.one_time.empty() ? "one-time"
                           : s.in_window       ? "in the window"
                                               : "outside the window");
    out += base::StrFormat("    %s\n", s.host.c_str());
    if (!s.where.op.empty() || !s.where.python.empty())
      out += base::StrFormat("    where: %s\n", WhereText(s.where, width - 11, full).c_str());
  }
  return out;
}

// "1-6", "1, 3, 5-7": the numbers of the findings priced before one.
std::string NumberRanges(const std::vector<int>& numbers) {
  std::string out;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(numbers[i]);
    if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(numbers[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string SavingText(const analysis::Finding& f) {
  if (f.severity == analysis::Severity::kInfo || f.standalone_ns == 0) return "";
  std::string out = "  saves " + base::FormatDuration(f.standalone_ns) + " (" +
                    base::FormatFixed(f.standalone_percent, 1) + "%)";
  // What it adds on top of the fixes priced before it, when that is less.
  if (f.impact_ns < f.standalone_ns && !f.priced_after.empty())
    out += " alone; " + (f.impact_ns == 0 ? std::string("0") : base::FormatDuration(f.impact_ns)) +
           " after " + NumberRanges(f.priced_after);
  return out;
}

std::string AnalyzeText(const model::Trace& t, const analysis::AnalysisReport& r,
                        const AnalyzeView& a) {
  std::string out;
  const auto& s = r.summary;
  const auto& st = r.steady;
  int64_t origin = t.TimeSpan().first;
  size_t width = std::max<size_t>(60, output::TerminalWidth());
  auto kv = [&](const char* k, const std::string& v) {
    out += base::StrFormat("  %-20s %s\n", k, v.c_str());
  };
  out += base::StrFormat("%s  (%s)\n\nSummary\n", a.path.c_str(), t.meta.format.c_str());
  kv("Wall time", base::FormatDuration(s.wall_ns) + " (trace span)");
  if (st.iterations.empty()) {
    kv("Steady state", st.source);
  } else {
    kv("Steady state", base::FormatCount(st.steady_count()) + " of " +
                           base::FormatCount(st.iterations.size()) + " steps (" + st.source + "; " +
                           base::FormatCount(st.warmup) + " warm-up), window " +
                           base::FormatDuration(s.window_ns));
    const auto& l = st.latency;
    kv("Per step",
       "mean " + base::FormatDuration(l.mean_ns) + ", median " + base::FormatDuration(l.median_ns) +
           ", p95 " + base::FormatDuration(l.p95_ns) + ", stddev " +
           base::FormatDuration(l.stddev_ns) + " (min " + base::FormatDuration(l.min_ns) +
           ", max " + base::FormatDuration(l.max_ns) + ")");
  }
  kv("Window", st.WindowText());
  // The stages say what repeats and whether it is steps, passes or layers; without a repeat
  // stage, the kernel block repeating inside a step (layers).
  if (StagesRepeat(st.stages))
    kv("Stages", StagesLine(st.stages));
  else if (st.structure.block)
    kv("Structure", st.structure.text() + " in a step (layers, not iterations)");
  if (r.graphs.graph_kernels) kv("Graph kernels", r.graphs.Summary());
  for (const auto& d : r.clocks.devices)
    if (d.verdict != analysis::ClockVerdict::kOk)
      kv("Clocks", "GPU " + std::to_string(d.device) + ", " +
                       std::string(analysis::ClockVerdictName(d.verdict)) + ": " + d.explanation);
  if (s.gpu_busy_pct >= 0) {
    kv("GPU busy", base::FormatFixed(s.gpu_busy_pct, 1) + "% (" + std::to_string(s.devices) +
                       " GPU" + (s.devices > 1 ? "s" : "") + ", streams merged)");
  }
  kv("Verdict", s.verdict);
  if (std::string health = HealthLine(r.health); !health.empty()) kv("Trace health", health);
  kv("In the window", "kernels " + base::FormatDuration(s.kernel_ns) + ", copies " +
                          base::FormatDuration(s.memcpy_ns) + ", runtime calls " +
                          base::FormatDuration(s.api_ns));
  if (std::string line = CategoryLine(s.categories, 5); !line.empty()) kv("By category", line);
  if (!s.idle.empty()) {
    std::string idle;
    for (size_t k = 0; k < s.idle.size() && k < 5; ++k) {
      idle += (k ? ", " : "") + s.idle[k].cause + " " + base::FormatDuration(s.idle[k].ns);
    }
    kv("GPU idle by cause", idle);
  }
  if (!s.host_pinning.empty() && s.host_pinning != "known") kv("Copy pinning", s.host_pinning);
  if (s.observed_ns > 0) {
    kv("Replay", "window " + base::FormatDuration(s.replayed_ns) + " replayed vs " +
                     base::FormatDuration(s.observed_ns) + " observed (error " +
                     base::FormatFixed(s.replay_error_percent, 2) + "%), " +
                     base::FormatCount(s.inferred_waits) + " host waits and " +
                     base::FormatCount(s.inferred_stream_waits) + " stream waits inferred" +
                     (s.recorded_stream_waits ? ", " + base::FormatCount(s.recorded_stream_waits) +
                                                    " stream waits recorded"
                                              : std::string()));
    kv("All fixes", "window " + base::FormatDuration(s.combined_ns) + ", saves " +
                        base::FormatDuration(s.combined_saving_ns) + " (" +
                        base::FormatFixed(100.0 * static_cast<double>(s.combined_saving_ns) /
                                              static_cast<double>(std::max<int64_t>(
                                                  1, s.combined_ns + s.combined_saving_ns)),
                                          1) +
                        "%)");
  }
  if (!s.critical_path.empty()) {
    int64_t total = 0;
    for (const auto& p : s.critical_path) total += p.ns;
    std::string path;
    for (size_t k = 0; k < s.critical_path.size() && k < 6; ++k) {
      path += (k ? ", " : "") + s.critical_path[k].category + " " +
              base::FormatFixed(100.0 * static_cast<double>(s.critical_path[k].ns) /
                                    static_cast<double>(std::max<int64_t>(1, total)),
                                1) +
              "%";
    }
    kv("Critical path", path);
    std::string places;
    for (size_t k = 0; k < s.critical_places.size() && k < 3; ++k) {
      const auto& p = s.critical_places[k];
      places += (k ? ", " : "") + base::ShortenName(p.name, 48) + " (" + p.category + ") " +
                base::FormatFixed(100.0 * static_cast<double>(p.ns) /
                                      static_cast<double>(std::max<int64_t>(1, total)),
                                  1) +
                "%";
    }
    if (!places.empty()) kv("On the path", places);
  }
  out += StagesTable(st.stages, width);
  out += PhasesText(r.phases, width);
  out += StallsText(r.stalls, origin, width, a.full_names);
  out += "\nFindings (ranked by what each fix alone would save in the steady window)\n";
  if (r.findings.empty()) {
    out += base::StrFormat("\n  none: no rule fired above its threshold\n");
    return out;
  }
  out += FindingsText(r.findings, origin, width, a.full_names, a.explain);
  return out;
}

std::string FindingsText(const std::vector<analysis::Finding>& findings, int64_t origin,
                         size_t width, bool full_names, const std::string& explain) {
  std::string out;
  size_t n = 0;
  for (const auto& f : findings) {
    std::string impact = SavingText(f);
    // Names in the prose folded (never cut) when a line would not fit; what still does not wraps.
    auto prose = [&](const std::string& text, size_t used) {
      return full_names ? text : base::FoldNamesInText(text, width > used + 20 ? width - used : 20);
    };
    const std::string severity(analysis::SeverityName(f.severity));
    out +=
        base::StrFormat("\n%2zu. [%s] %s: %s%s\n", ++n, severity.c_str(), f.rule.c_str(),
                        prose(f.title, 8 + severity.size() + f.rule.size() + impact.size()).c_str(),
                        impact.c_str());
    out +=
        base::StrFormat("    where:    %s\n", WhereText(f.where, width - 14, full_names).c_str());
    out += CallerLine(f.where, width - 14, full_names);
    if (!f.detail.empty())
      out += base::StrFormat("    measured: %s\n", prose(f.detail, 14).c_str());
    for (size_t k = 0; k < f.evidence.size(); ++k) {
      const auto& e = f.evidence[k];
      std::string when =
          e.dur_ns || e.start_ns
              ? "at " + Rel(e.start_ns, origin) +
                    (e.iteration >= 0 ? " (iteration " + std::to_string(e.iteration) + ")" : "") +
                    ", " + base::FormatDuration(e.dur_ns) + ": "
              : std::string();
      out += base::StrFormat("    %-9s %s%s\n", k == 0 ? "evidence:" : "", when.c_str(),
                             prose(e.what, 14 + base::DisplayWidth(when)).c_str());
    }
    if (!f.fix.empty()) out += base::StrFormat("    priced:   %s\n", f.fix.c_str());
    if (!explain.empty() && explain == f.rule && !f.changes.empty()) {
      out += base::StrFormat(
          "    replay:   window %s unchanged, %s with this fix alone (saves %s)\n",
          base::FormatDuration(f.baseline_ns).c_str(), base::FormatDuration(f.fixed_ns).c_str(),
          base::FormatDuration(f.standalone_ns).c_str());
      out += base::StrFormat("    edits:    %s (remove %s: the most the fix can save)\n",
                             f.changes.c_str(), base::FormatDuration(f.edits_remove_ns).c_str());
      out += base::StrFormat(
          "    impact:   %s: what this fix adds on top of the findings ranked before it, at most "
          "its own saving\n",
          base::FormatDuration(f.impact_ns).c_str());
    }
    out += base::StrFormat("    fix:      %s\n", f.advice.c_str());
  }
  return out;
}

std::string AnalyzeJson(const model::Trace& t, const analysis::AnalysisReport& r,
                        const AnalyzeView& a) {
  std::string out;
  output::JsonWriter w;
  WriteAnalysisJson(w, t, r, a.path);
  out += w.str();
  return out;
}

std::string AnalyzeCsv(const analysis::AnalysisReport& r) { return FindingsCsv(r.findings); }

std::string FindingsCsv(const std::vector<analysis::Finding>& findings) {
  std::string out;
  ResultTable t({{"rule"},
                 {"severity"},
                 {"title"},
                 {"impact_ns"},
                 {"impact_percent", "", Show::kFixed1, "", false, 4},
                 {"python"},
                 {"op"},
                 {"kernel"},
                 {"detail"}});
  for (const auto& f : findings) {
    t.AddRow({Cell::Text(f.rule), Cell::Text(std::string(analysis::SeverityName(f.severity))),
              Cell::Text(f.title), Cell::Int(f.impact_ns), Cell::Real(f.impact_percent),
              Cell::Text(f.where.python), Cell::Text(f.where.op), Cell::Text(f.where.kernel),
              Cell::Text(f.detail)});
  }
  out += t.Csv();
  return out;
}

}  // namespace gpuscope::render
