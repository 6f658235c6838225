// `gpuscope analyze TRACE`: the ranked findings with their measured cost, where they come from
// and the fix; text report, JSON or CSV.

#include <cstdio>
#include <string>

#include "analysis/analyze.h"
#include "base/text.h"
#include "cli/analysis_json.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "output/csv_writer.h"
#include "output/json_writer.h"
#include "output/text_table.h"

namespace gpuscope::cli {
namespace {

struct AnalyzeArgs {
  std::string path;
  std::string format = "table";
  bool full_names = false;
  double idle_gap_us = 20, tiny_kernel_us = 10, tiny_op_us = 50, small_copy_kb = 64;
  double hotspot_percent = 10, low_utilization_percent = 50;
};

std::string Rel(int64_t ns, int64_t origin) { return "+" + base::FormatDuration(ns - origin); }

std::string WhereText(const analysis::Where& w, size_t width, bool full) {
  std::string out;
  auto add = [&](const std::string& s) {
    if (s.empty()) return;
    out += (out.empty() ? "" : "  >  ") + (full ? s : base::ShortenName(s, width));
  };
  add(w.python);
  add(w.op);
  add(w.kernel);
  return out.empty() ? "(not attributed: the trace has no launch links or CPU ops here)" : out;
}

void PrintReport(const model::Trace& t, const analysis::AnalysisReport& r, const AnalyzeArgs& a) {
  const auto& s = r.summary;
  const auto& st = r.steady;
  int64_t origin = t.TimeSpan().first;
  size_t width = std::max<size_t>(60, output::TerminalWidth());
  auto kv = [](const char* k, const std::string& v) { std::printf("  %-20s %s\n", k, v.c_str()); };
  std::printf("%s  (%s)\n\nSummary\n", a.path.c_str(), t.meta.format.c_str());
  kv("Wall time", base::FormatDuration(s.wall_ns) + " (trace span)");
  if (st.iterations.empty()) {
    kv("Steady state", st.source);
  } else {
    kv("Steady state", base::FormatCount(st.steady_count()) + " of " + base::FormatCount(st.iterations.size()) +
                           " iterations (" + st.source + "; " + base::FormatCount(st.warmup) + " warm-up), window " +
                           base::FormatDuration(s.window_ns));
    const auto& l = st.latency;
    kv("Per iteration", "mean " + base::FormatDuration(l.mean_ns) + ", median " + base::FormatDuration(l.median_ns) +
                            ", p95 " + base::FormatDuration(l.p95_ns) + ", stddev " + base::FormatDuration(l.stddev_ns) +
                            " (min " + base::FormatDuration(l.min_ns) + ", max " + base::FormatDuration(l.max_ns) + ")");
  }
  if (s.gpu_busy_pct >= 0) {
    kv("GPU busy", base::FormatFixed(s.gpu_busy_pct, 1) + "% (" + std::to_string(s.devices) + " GPU" +
                       (s.devices > 1 ? "s" : "") + ", streams merged)");
  }
  kv("Verdict", s.verdict);
  kv("In the window", "kernels " + base::FormatDuration(s.kernel_ns) + ", copies " + base::FormatDuration(s.memcpy_ns) +
                          ", runtime calls " + base::FormatDuration(s.api_ns));
  if (!s.idle.empty()) {
    std::string idle;
    for (size_t k = 0; k < s.idle.size() && k < 5; ++k) {
      idle += (k ? ", " : "") + s.idle[k].cause + " " + base::FormatDuration(s.idle[k].ns);
    }
    kv("GPU idle by cause", idle);
  }
  if (!s.host_pinning.empty() && s.host_pinning != "known") kv("Copy pinning", s.host_pinning);
  std::printf("\nFindings (ranked by the time a fix would save in the steady window)\n");
  if (r.findings.empty()) {
    std::printf("\n  none: no rule fired above its threshold\n");
    return;
  }
  size_t n = 0;
  for (const auto& f : r.findings) {
    std::string impact = f.severity == "info" || f.impact_ns == 0
                             ? std::string()
                             : "  saves " + base::FormatDuration(f.impact_ns) + " (" + base::FormatFixed(f.impact_percent, 1) + "%)";
    std::printf("\n%2zu. [%s] %s: %s%s\n", ++n, f.severity.c_str(), f.rule.c_str(), f.title.c_str(), impact.c_str());
    std::printf("    where:    %s\n", WhereText(f.where, width - 14, a.full_names).c_str());
    if (!f.detail.empty()) std::printf("    measured: %s\n", f.detail.c_str());
    for (size_t k = 0; k < f.evidence.size(); ++k) {
      const auto& e = f.evidence[k];
      std::string when = e.dur_ns || e.start_ns ? "at " + Rel(e.start_ns, origin) +
                                                     (e.iteration >= 0 ? " (iteration " + std::to_string(e.iteration) + ")" : "") +
                                                     ", " + base::FormatDuration(e.dur_ns) + ": "
                                                : std::string();
      std::printf("    %-9s %s%s\n", k == 0 ? "evidence:" : "", when.c_str(),
                  (a.full_names ? e.what : base::ShortenName(e.what, width - 40)).c_str());
    }
    std::printf("    fix:      %s\n", f.advice.c_str());
  }
}

void PrintJson(const model::Trace& t, const analysis::AnalysisReport& r, const AnalyzeArgs& a) {
  output::JsonWriter w;
  WriteAnalysisJson(w, t, r, a.path);
  std::fputs(w.str().c_str(), stdout);
}

void PrintCsv(const analysis::AnalysisReport& r) {
  output::CsvWriter c;
  c.Row({"rule", "severity", "title", "impact_ns", "impact_percent", "python", "op", "kernel", "detail"});
  for (const auto& f : r.findings) {
    c.Row({f.rule, f.severity, f.title, std::to_string(f.impact_ns), base::FormatFixed(f.impact_percent, 4), f.where.python,
           f.where.op, f.where.kernel, f.detail});
  }
  std::fputs(c.str().c_str(), stdout);
}

}  // namespace

void PrintAnalyzeReport(const model::Trace& trace, const std::string& path) {
  AnalyzeArgs a;
  a.path = path;
  PrintReport(trace, analysis::Analyze(trace), a);
}

CommandBody AddAnalyzeCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<AnalyzeArgs>();
  app.add_option("trace", a->path, "Trace file (any format gpuscope reads)")->required();
  app.add_option("--format", a->format, "Output format")->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_flag("--full-names", a->full_names, "Show names whole instead of fitting them to the terminal");
  app.add_option("--idle-gap-us", a->idle_gap_us, "gpu-idle: shortest gap reported (us)")->capture_default_str();
  app.add_option("--tiny-kernel-us", a->tiny_kernel_us, "launch-bound: kernels shorter than this (us)")->capture_default_str();
  app.add_option("--tiny-op-us", a->tiny_op_us, "cpu-op-storm: ops shorter than this (us)")->capture_default_str();
  auto opts = std::make_shared<analysis::AnalyzeOptions>();
  app.add_option("--storm-ops", opts->storm_ops_per_iteration, "cpu-op-storm: tiny ops per iteration from one place")->capture_default_str();
  app.add_option("--small-copies", opts->small_copies_per_iteration, "small-memcpy: copies per iteration")->capture_default_str();
  app.add_option("--small-copy-kb", a->small_copy_kb, "small-memcpy: copies smaller than this (KiB)")->capture_default_str();
  app.add_option("--outlier-mads", opts->outlier_mads, "kernel-outlier: MADs above the median")->capture_default_str();
  app.add_option("--hotspot-percent", a->hotspot_percent, "kernel-hotspot: share of kernel time")->capture_default_str();
  app.add_option("--low-utilization-percent", a->low_utilization_percent, "low-utilization: GPU busy share below this")
      ->capture_default_str();
  app.add_option("--evidence", opts->evidence, "Instances listed per finding")->capture_default_str();
  return [a, opts, &common]() -> base::StatusOr<int> {
    auto trace = LoadTimeline(a->path, common, "analyze");
    if (!trace.ok()) return trace.status();
    analysis::AnalyzeOptions o = *opts;
    o.idle_gap_ns = static_cast<int64_t>(a->idle_gap_us * 1e3);
    o.tiny_kernel_ns = static_cast<int64_t>(a->tiny_kernel_us * 1e3);
    o.tiny_op_ns = static_cast<int64_t>(a->tiny_op_us * 1e3);
    o.small_copy_bytes = static_cast<int64_t>(a->small_copy_kb * 1024);
    o.hotspot_share = a->hotspot_percent / 100;
    o.low_utilization = a->low_utilization_percent / 100;
    analysis::AnalysisReport r = analysis::Analyze(*trace, o);
    if (a->format == "json") PrintJson(*trace, r, *a);
    else if (a->format == "csv") PrintCsv(r);
    else PrintReport(*trace, r, *a);
    return 0;
  };
}

}  // namespace gpuscope::cli
