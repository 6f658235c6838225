// `gpuscope stats TRACE`: the summary tables, as a terminal table, CSV or JSON.

#include <cstdio>
#include <string>

#include "analysis/stats.h"
#include "analysis/steady_state.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/stats_csv.h"
#include "cli/units.h"
#include "output/csv_writer.h"
#include "output/json_writer.h"
#include "output/text_table.h"

namespace gpuscope::cli {
namespace {

struct StatsArgs {
  std::string path;
  size_t top = 0;
  bool top_given = false;
  std::string by;  // "", kernels, memops, api, cpu
  std::string format = "table";
  bool full_names = false;
  bool mangled = false;
  bool steady = false;
};

template <typename Row>
size_t Limit(const std::vector<Row>& rows, const StatsArgs& a, size_t table_default) {
  size_t top = a.top_given ? a.top : table_default;
  return top == 0 ? rows.size() : std::min(top, rows.size());
}

std::string MemopHost(const analysis::MemopStat& s) {
  if (s.kind != model::MemopKind::kHtoD && s.kind != model::MemopKind::kDtoH) return "-";
  std::string out;
  auto add = [&](uint64_t n, const char* what) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += base::FormatCount(n) + " " + what;
  };
  add(s.pageable, "pageable");
  add(s.pinned, "pinned");
  add(s.host_unknown, "not recorded");
  return out;
}

// ---- table ----

// Summary-only sources do not know every statistic: -1 prints as "n/a" (null in JSON).
std::string OrNa(const Unit& u, int64_t v) { return v < 0 ? "n/a" : u.Format(v); }
void IntOrNull(output::JsonWriter& w, int64_t v) {
  if (v < 0) w.Null(); else w.Int(v);
}

void PrintKernels(const analysis::Stats& st, const StatsArgs& a, size_t width) {
  if (st.kernels.empty()) {
    std::printf("GPU kernels:\n\n(none in this trace)\n");
    return;
  }
  const Unit u = PickUnit(st.kernels.front().total_ns);
  output::TextTable t;
  using A = output::TextTable::Align;
  t.AddColumn("Time %", A::kRight);
  t.AddColumn("Total (" + u.name + ")", A::kRight);
  t.AddColumn("Calls", A::kRight);
  for (const char* h : {"Avg", "Med", "Min", "Max", "StdDev"}) {
    t.AddColumn(std::string(h) + " (" + u.name + ")", A::kRight);
  }
  t.AddColumn("Name", A::kLeft, true);
  size_t n = Limit(st.kernels, a, 25);
  for (size_t i = 0; i < n; ++i) {
    const auto& k = st.kernels[i];
    t.AddRow({base::FormatFixed(k.percent, 1), u.Format(k.total_ns), base::FormatCount(k.calls),
              u.Format(k.avg_ns), OrNa(u, k.median_ns), OrNa(u, k.min_ns), OrNa(u, k.max_ns),
              OrNa(u, k.stddev_ns), k.name});
  }
  uint64_t calls = 0;
  for (const auto& k : st.kernels) calls += k.calls;
  std::printf("GPU kernels: %s dispatches of %s kernels, %s in total\n\n", base::FormatCount(calls).c_str(),
              base::FormatCount(st.kernels.size()).c_str(), base::FormatDuration(st.kernel_total_ns).c_str());
  std::fputs(t.Render(width, !a.full_names).c_str(), stdout);
  if (n < st.kernels.size()) {
    std::printf("... %s more kernels (--top 0 shows all)\n", base::FormatCount(st.kernels.size() - n).c_str());
  }
}

void PrintMemops(const analysis::Stats& st, size_t width) {
  std::printf("GPU memory operations:\n\n");
  if (st.memops.empty()) {
    std::printf("(none in this trace)\n");
    return;
  }
  int64_t max_total = 0;
  for (const auto& m : st.memops) max_total = std::max(max_total, m.total_ns);
  const Unit u = PickUnit(max_total);
  output::TextTable t;
  using A = output::TextTable::Align;
  t.AddColumn("Kind", A::kLeft);
  t.AddColumn("Calls", A::kRight);
  t.AddColumn("Bytes", A::kRight);
  t.AddColumn("Total (" + u.name + ")", A::kRight);
  t.AddColumn("Avg GB/s", A::kRight);
  t.AddColumn("Host memory", A::kLeft, true);
  for (const auto& m : st.memops) {
    std::string bytes = m.calls_unknown_bytes == m.calls ? "unknown" : base::FormatBytes(m.bytes);
    if (m.calls_unknown_bytes > 0 && m.calls_unknown_bytes < m.calls) bytes += " (+" + base::FormatCount(m.calls_unknown_bytes) + " unknown)";
    t.AddRow({std::string(model::MemopKindName(m.kind)), base::FormatCount(m.calls), bytes,
              u.Format(m.total_ns), m.bandwidth_known ? base::FormatFixed(m.gbps, 2) : "unknown",
              MemopHost(m)});
  }
  std::fputs(t.Render(width, true).c_str(), stdout);
}

void PrintApi(const std::vector<analysis::ApiStat>& api, const char* title, const StatsArgs& a, size_t width) {
  std::printf("%s:\n\n", title);
  if (api.empty()) {
    std::printf("(none in this trace)\n");
    return;
  }
  const Unit u = PickUnit(api.front().total_ns);
  output::TextTable t;
  using A = output::TextTable::Align;
  t.AddColumn("Total (" + u.name + ")", A::kRight);
  t.AddColumn("Calls", A::kRight);
  for (const char* h : {"Avg", "Med", "Min", "Max"}) t.AddColumn(std::string(h) + " (" + u.name + ")", A::kRight);
  t.AddColumn("Name", A::kLeft, true);
  size_t n = Limit(api, a, 15);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = api[i];
    t.AddRow({u.Format(r.total_ns), base::FormatCount(r.calls), u.Format(r.avg_ns), OrNa(u, r.median_ns),
              OrNa(u, r.min_ns), OrNa(u, r.max_ns), r.name});
  }
  std::fputs(t.Render(width, !a.full_names).c_str(), stdout);
  if (n < api.size()) std::printf("... %s more (--top 0 shows all)\n", base::FormatCount(api.size() - n).c_str());
}

void PrintCpu(const analysis::Stats& st, const StatsArgs& a, size_t width) {
  std::printf("CPU ops:\n\n");
  if (st.cpu_ops.empty()) {
    std::printf("(none in this trace)\n");
    return;
  }
  const Unit u = PickUnit(st.cpu_ops.front().total_ns);
  output::TextTable t;
  using A = output::TextTable::Align;
  t.AddColumn("Total (" + u.name + ")", A::kRight);
  t.AddColumn("Self (" + u.name + ")", A::kRight);
  t.AddColumn("Calls", A::kRight);
  t.AddColumn("Avg (" + u.name + ")", A::kRight);
  t.AddColumn("Name", A::kLeft, true);
  size_t n = Limit(st.cpu_ops, a, 15);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = st.cpu_ops[i];
    t.AddRow({u.Format(r.total_ns), u.Format(r.self_ns), base::FormatCount(r.calls), u.Format(r.avg_ns), r.name});
  }
  std::fputs(t.Render(width, !a.full_names).c_str(), stdout);
  if (n < st.cpu_ops.size()) std::printf("... %s more (--top 0 shows all)\n", base::FormatCount(st.cpu_ops.size() - n).c_str());
}

// ---- json ----

void JsonKernels(output::JsonWriter& w, const analysis::Stats& st, const StatsArgs& a) {
  w.Key("kernels").BeginArray();
  size_t n = Limit(st.kernels, a, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& k = st.kernels[i];
    w.BeginObject().Key("name").String(k.name).Key("calls").Uint(k.calls).Key("total_ns").Int(k.total_ns)
        .Key("avg_ns").Int(k.avg_ns);
    w.Key("median_ns"), IntOrNull(w, k.median_ns);
    w.Key("min_ns"), IntOrNull(w, k.min_ns);
    w.Key("max_ns"), IntOrNull(w, k.max_ns);
    w.Key("stddev_ns"), IntOrNull(w, k.stddev_ns);
    w.Key("percent").Double(k.percent).EndObject();
  }
  w.EndArray();
}

void JsonMemops(output::JsonWriter& w, const analysis::Stats& st) {
  w.Key("memops").BeginArray();
  for (const auto& m : st.memops) {
    w.BeginObject().Key("kind").String(model::MemopKindName(m.kind)).Key("calls").Uint(m.calls);
    w.Key("bytes");
    if (m.calls_unknown_bytes == m.calls) w.Null(); else w.Int(m.bytes);
    w.Key("calls_unknown_bytes").Uint(m.calls_unknown_bytes).Key("total_ns").Int(m.total_ns).Key("gbps");
    if (m.bandwidth_known) w.Double(m.gbps); else w.Null();
    if (m.kind == model::MemopKind::kHtoD || m.kind == model::MemopKind::kDtoH) {
      w.Key("host_memory").BeginObject().Key("pageable").Uint(m.pageable).Key("pinned").Uint(m.pinned)
          .Key("unknown").Uint(m.host_unknown).EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
}

void JsonApi(output::JsonWriter& w, const char* key, const std::vector<analysis::ApiStat>& api, const StatsArgs& a) {
  w.Key(key).BeginArray();
  size_t n = Limit(api, a, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = api[i];
    w.BeginObject().Key("name").String(r.name).Key("domain").String(r.domain).Key("calls").Uint(r.calls)
        .Key("total_ns").Int(r.total_ns).Key("avg_ns").Int(r.avg_ns);
    w.Key("median_ns"), IntOrNull(w, r.median_ns);
    w.Key("min_ns"), IntOrNull(w, r.min_ns);
    w.Key("max_ns"), IntOrNull(w, r.max_ns);
    w.EndObject();
  }
  w.EndArray();
}

void PrintCounters(const analysis::Stats& st, size_t width) {
  std::printf("Counters:\n\n");
  output::TextTable t;
  using A = output::TextTable::Align;
  t.AddColumn("Samples", A::kRight);
  t.AddColumn("Min", A::kRight);
  t.AddColumn("Mean", A::kRight);
  t.AddColumn("Max", A::kRight);
  t.AddColumn("Name", A::kLeft, true);
  auto num = [](double v) { return base::FormatFixed(v, v == static_cast<int64_t>(v) ? 0 : 3); };
  for (const auto& c : st.counters) {
    t.AddRow({base::FormatCount(c.samples), num(c.min), base::FormatFixed(c.mean, 3), num(c.max), c.name});
  }
  std::fputs(t.Render(width, true).c_str(), stdout);
}

void JsonCounters(output::JsonWriter& w, const analysis::Stats& st) {
  w.Key("counters").BeginArray();
  for (const auto& c : st.counters) {
    w.BeginObject().Key("name").String(c.name).Key("samples").Uint(c.samples).Key("min").Double(c.min)
        .Key("mean").Double(c.mean).Key("max").Double(c.max).EndObject();
  }
  w.EndArray();
}

void JsonCpu(output::JsonWriter& w, const analysis::Stats& st, const StatsArgs& a) {
  w.Key("cpu_ops").BeginArray();
  size_t n = Limit(st.cpu_ops, a, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = st.cpu_ops[i];
    w.BeginObject().Key("name").String(r.name).Key("calls").Uint(r.calls).Key("total_ns").Int(r.total_ns)
        .Key("self_ns").Int(r.self_ns).EndObject();
  }
  w.EndArray();
}

// ---- csv ----

void Csv(const analysis::Stats& st, const StatsArgs& a) {
  std::string table = a.by.empty() ? "kernels" : a.by;
  std::fputs(StatsTableCsv(st, table, a.top_given ? a.top : 0).c_str(), stdout);
}

int Run(const StatsArgs& a, const model::Trace& trace) {
  analysis::StatsOptions opt;
  opt.demangle = !a.mangled;
  std::string window;
  if (a.steady && !trace.summary_only()) {
    analysis::SteadyState ss = analysis::FindSteadyState(trace);
    opt.window_start = ss.start_ns;
    opt.window_end = ss.end_ns;
    window = "steady state: " + (ss.iterations.empty() ? ss.source
                                                       : base::FormatCount(ss.steady_count()) + " iterations after " +
                                                             base::FormatCount(ss.warmup) + " warm-up (" + ss.source + ")");
  }
  analysis::Stats st = analysis::ComputeStats(trace, opt);
  if (a.format == "json") {
    output::JsonWriter w;
    w.BeginObject();
    w.Key("source").BeginObject().Key("path").String(a.path).Key("format").String(trace.meta.format)
        .Key("format_version").String(trace.meta.format_version).EndObject();
    if (a.steady) w.Key("window").String(window);
    if (a.by.empty() || a.by == "kernels") JsonKernels(w, st, a);
    if (a.by.empty() || a.by == "memops") JsonMemops(w, st);
    if (a.by.empty() || a.by == "api") JsonApi(w, "api", st.api, a);
    if ((a.by.empty() && !st.os_runtime.empty()) || a.by == "os") JsonApi(w, "os_runtime", st.os_runtime, a);
    if (a.by.empty() || a.by == "cpu") JsonCpu(w, st, a);
    if ((a.by.empty() && !st.counters.empty()) || a.by == "counters") JsonCounters(w, st);
    w.EndObject();
    std::fputs(w.str().c_str(), stdout);
    return 0;
  }
  if (a.format == "csv") {
    Csv(st, a);
    return 0;
  }
  const size_t width = output::TerminalWidth();
  std::printf("%s  (%s)%s\n\n", a.path.c_str(), trace.meta.format.c_str(), window.empty() ? "" : ("  [" + window + "]").c_str());
  bool all = a.by.empty();
  if (all || a.by == "kernels") PrintKernels(st, a, width);
  if (all) std::printf("\n");
  if (all || a.by == "memops") PrintMemops(st, width);
  if (all) std::printf("\n");
  if (all || a.by == "api") PrintApi(st.api, "Runtime / driver API calls", a, width);
  if ((all && !st.os_runtime.empty()) || a.by == "os") {
    if (all) std::printf("\n");
    PrintApi(st.os_runtime, "OS runtime calls", a, width);
  }
  if (all) std::printf("\n");
  if (all || a.by == "cpu") PrintCpu(st, a, width);
  if ((all && !st.counters.empty()) || a.by == "counters") {
    if (all) std::printf("\n");
    PrintCounters(st, width);
  }
  return 0;
}

}  // namespace

void PrintStatsTables(const model::Trace& trace, const std::string& path) {
  StatsArgs a;
  a.path = path;
  Run(a, trace);
}

CommandBody AddStatsCommand(CLI::App& app, const CommonOptions& common) {
  auto args = std::make_shared<StatsArgs>();
  app.add_option("trace", args->path, "Trace file (Kineto .json / .json.gz)")->required();
  app.add_option("--top", args->top, "Rows per table (0 = all; tables default to 25/15, json/csv to all)")
      ->each([args](const std::string&) { args->top_given = true; });
  app.add_option("--by", args->by, "Only one table (csv defaults to kernels)")
      ->check(CLI::IsMember({"kernels", "memops", "api", "os", "cpu", "counters"}));
  app.add_option("--format", args->format, "Output format")->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_flag("--full-names", args->full_names, "Show names whole instead of fitting them to the terminal");
  app.add_flag("--mangled", args->mangled, "Keep mangled kernel names as recorded");
  app.add_flag("--steady", args->steady, "Only the steady state: iterations after warm-up (see gpuscope analyze)");
  return [args, &common]() -> base::StatusOr<int> {
    auto trace = LoadTrace(args->path, common);
    if (!trace.ok()) return trace.status();
    return Run(*args, *trace);
  };
}

}  // namespace gpuscope::cli
