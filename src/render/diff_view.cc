#include "render/diff_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "base/short_name.h"
#include "base/text.h"
#include "output/json_writer.h"
#include "output/text_table.h"
#include "render/analysis_json.h"
#include "render/python_place.h"
#include "render/result_table.h"
#include "render/schema_version.h"
#include "render/stages_view.h"

namespace gpuscope::render {
namespace {

void JsonPair(output::JsonWriter& w, const char* key, const analysis::Pair& p, bool integer) {
  w.Key(key).BeginArray();
  if (integer)
    w.Int(static_cast<int64_t>(p.before)).Int(static_cast<int64_t>(p.after));
  else
    w.Double(p.before).Double(p.after);
  w.EndArray();
}

// The phases both runs have (serving traces), before and after, matched by name.
std::vector<std::pair<const analysis::PhaseSummary*, const analysis::PhaseSummary*>> PhasePairs(
    const analysis::DiffReport& r) {
  std::vector<std::pair<const analysis::PhaseSummary*, const analysis::PhaseSummary*>> out;
  for (const auto& b : r.before.phases)
    for (const auto& a : r.after.phases)
      if (a.name == b.name) out.emplace_back(&b, &a);
  return out;
}

void JsonRows(output::JsonWriter& w, const char* key,
              const std::vector<analysis::NamedDiff>& rows) {
  w.Key(key).BeginArray();
  for (const auto& d : rows) {
    w.BeginObject().Key("name").String(d.name).Key("status").String(d.status);
    w.Key("calls").BeginArray().Uint(d.calls_before).Uint(d.calls_after).EndArray();
    w.Key("total_ns").BeginArray().Int(d.total_before).Int(d.total_after).EndArray();
    if (d.calls_per_iteration_before >= 0) {
      w.Key("calls_per_iteration")
          .BeginArray()
          .Double(d.calls_per_iteration_before)
          .Double(d.calls_per_iteration_after)
          .EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
}

// One row per matched name: the machine columns (table, name, status, calls and totals before
// and after) and the terminal's (calls with their per-iteration rate, delta, ratio).
ResultTable NamedDiffColumns() {
  ResultTable t({{"table"},
                 Column::Flexible("name", "Name"),
                 {"status", "Status", Show::kText},
                 {"calls_before"},
                 {"calls_after"},
                 {"total_ns_before"},
                 {"total_ns_after"},
                 Column::TerminalOnly("Calls before"),
                 Column::TerminalOnly("Calls after"),
                 Column::TerminalOnly("Total before"),
                 Column::TerminalOnly("Total after"),
                 Column::TerminalOnly("Delta"),
                 Column::TerminalOnly("Ratio")});
  t.SetTerminalOrder({2, 7, 8, 9, 10, 11, 12, 1});
  return t;
}

// Adds the rows of one table ("kernels", "memops", ...) to a NamedDiffColumns() table.
void AddNamedDiffRows(ResultTable& t, const std::vector<analysis::NamedDiff>& rows,
                      std::string_view table) {
  auto calls = [](uint64_t c, double per) {
    std::string out = base::FormatCount(c);
    if (per >= 0) out += " (" + base::FormatFixed(per, 1) + "/it)";
    return Cell::Text(out);
  };
  for (const auto& d : rows) {
    std::string ratio = "-";
    if (d.total_before > 0 && d.total_after > 0) {
      // Two significant digits at least, so that a drop to a thousandth never reads "0.00x".
      double x = static_cast<double>(d.total_after) / static_cast<double>(d.total_before);
      ratio = x >= 0.1     ? base::FormatFixed(x, 2) + "x"
              : x >= 0.001 ? base::FormatFixed(x, x >= 0.01 ? 3 : 4) + "x"
                           : "<0.001x";
    }
    std::string delta = d.delta() > 0 ? "+" : d.delta() < 0 ? "-" : "";
    delta += base::FormatDuration(std::llabs(d.delta()));
    t.AddRow({Cell::Text(std::string(table)), Cell::Text(d.name), Cell::Text(d.status),
              Cell::Uint(d.calls_before), Cell::Uint(d.calls_after), Cell::Int(d.total_before),
              Cell::Int(d.total_after), calls(d.calls_before, d.calls_per_iteration_before),
              calls(d.calls_after, d.calls_per_iteration_after),
              Cell::Text(base::FormatDuration(d.total_before)),
              Cell::Text(base::FormatDuration(d.total_after)), Cell::Text(delta),
              Cell::Text(ratio)});
  }
}

}  // namespace

std::string Pct(double v) {
  std::string out = v > 0 ? "+" : "";  // built in steps: GCC 12 misreads "+" + string (-Wrestrict)
  out += base::FormatFixed(v, 1);
  out += '%';
  return out;
}

namespace {

// The runs' stages side by side (paired by kind in order): each one's label and time, per repeat
// for a repeated one. "" when neither run repeats.
std::string StagesDiffText(const analysis::DiffReport& r, size_t width) {
  const auto& sb = r.before.steady.stages;
  const auto& sa = r.after.steady.stages;
  if (!StagesRepeat(sb) && !StagesRepeat(sa)) return "";
  output::TextTable t;
  using A = output::TextTable::Align;
  for (const char* h : {"Stage before", "each", "Stage after", "each", "change"})
    t.AddColumn(h, h[0] == 'S' ? A::kLeft : A::kRight);
  auto each = [](const analysis::Stage& x) {
    return x.dur_ns / static_cast<int64_t>(std::max<size_t>(1, x.repeats));
  };
  for (const auto& p : r.stages) {
    const analysis::Stage* b = p.before >= 0 ? &sb[static_cast<size_t>(p.before)] : nullptr;
    const analysis::Stage* af = p.after >= 0 ? &sa[static_cast<size_t>(p.after)] : nullptr;
    t.AddRow(
        {b ? b->label : "-", b ? base::FormatDuration(each(*b)) : "-", af ? af->label : "-",
         af ? base::FormatDuration(each(*af)) : "-",
         b && af ? Pct(analysis::Pair{static_cast<double>(each(*b)), static_cast<double>(each(*af))}
                           .change_percent())
                 : ""});
  }
  return "\nStages (what repeats and what runs once, paired in order)\n" + t.Render(width, true);
}

}  // namespace

std::string DiffText(const analysis::DiffReport& r, const DiffView& a) {
  std::string out;
  size_t width = std::max<size_t>(80, output::TerminalWidth());
  out += base::StrFormat("before: %s\nafter:  %s\n\n", a.before.c_str(), a.after.c_str());
  output::TextTable s;
  using A = output::TextTable::Align;
  s.AddColumn("", A::kLeft);
  s.AddColumn("before", A::kRight);
  s.AddColumn("after", A::kRight);
  s.AddColumn("change", A::kRight);
  auto dur = [&](const char* k, const analysis::Pair& p) {
    s.AddRow({k, base::FormatDuration(static_cast<int64_t>(p.before)),
              base::FormatDuration(static_cast<int64_t>(p.after)), Pct(p.change_percent())});
  };
  if (r.iterations.before > 0 && r.iterations.after > 0) {
    dur("Per iteration, mean", r.iteration_mean_ns);
    dur("Per iteration, median", r.iteration_median_ns);
    dur("Per iteration, p95", r.iteration_p95_ns);
  }
  s.AddRow({r.period_kernels_before ? "Periods (kernel repeats)" : "Steady iterations",
            base::FormatFixed(r.iterations.before, 0), base::FormatFixed(r.iterations.after, 0),
            ""});
  // Warm-up apart: a cost that moved there is not gone.
  if (r.warmup_ns.before > 0 || r.warmup_ns.after > 0) dur("Warm-up steps", r.warmup_ns);
  if (r.gpu_busy_pct.before >= 0 || r.gpu_busy_pct.after >= 0) {
    s.AddRow({"GPU busy", base::FormatFixed(r.gpu_busy_pct.before, 1) + "%",
              base::FormatFixed(r.gpu_busy_pct.after, 1) + "%",
              base::FormatFixed(r.gpu_busy_pct.after - r.gpu_busy_pct.before, 1) + " pts"});
  }
  dur("Kernel time", r.kernel_ns);
  dur("Copy time", r.memcpy_ns);
  dur("Runtime API time", r.api_ns);
  s.AddRow({"Copy bytes", base::FormatBytes(static_cast<int64_t>(r.copy_bytes.before)),
            base::FormatBytes(static_cast<int64_t>(r.copy_bytes.after)),
            Pct(r.copy_bytes.change_percent())});
  dur("Wall time (trace span)", r.wall_ns);
  for (const auto& [b, af] : PhasePairs(r)) {
    std::string n = b->name;
    dur((n + ", median per step").c_str(),
        {static_cast<double>(b->latency.median_ns), static_cast<double>(af->latency.median_ns)});
    dur((n + ", p95 per step").c_str(),
        {static_cast<double>(b->latency.p95_ns), static_cast<double>(af->latency.p95_ns)});
    s.AddRow({n + ", steps", base::FormatCount(b->steps), base::FormatCount(af->steps), ""});
    if (b->tokens_per_second >= 0 && af->tokens_per_second >= 0) {
      analysis::Pair tps{b->tokens_per_second, af->tokens_per_second};
      s.AddRow({n + ", tokens/s", base::FormatFixed(tps.before, 0), base::FormatFixed(tps.after, 0),
                Pct(tps.change_percent())});
    }
  }
  out += s.Render(width, true);
  out += StagesDiffText(r, width);
  out += base::StrFormat("\nVerdict: %s (%s; %s)\n", r.verdict.c_str(), r.basis.c_str(),
                         r.test.c_str());

  auto table = [&](const char* title, const std::vector<analysis::NamedDiff>& rows) {
    out += base::StrFormat("\n%s:\n\n", title);
    if (rows.empty()) {
      out += base::StrFormat("(none in either run)\n");
      return;
    }
    // Rows that took no time on either side say nothing in a comparison of times (JSON and CSV
    // keep them).
    std::vector<analysis::NamedDiff> timed;
    for (const auto& d : rows) {
      if (d.total_before != 0 || d.total_after != 0) timed.push_back(d);
    }
    if (timed.empty()) {
      out += base::StrFormat("(no time in either run)\n");
      return;
    }
    ResultTable t = NamedDiffColumns();
    AddNamedDiffRows(t, timed, "");
    size_t n = a.top == 0 ? timed.size() : std::min(a.top, timed.size());
    out += t.Text(width, !a.full_names, n);
    if (n < timed.size())
      out += base::StrFormat("... %s more (--top 0 shows all)\n",
                             base::FormatCount(timed.size() - n).c_str());
  };
  out += CategoryDiffText(r, width, a.full_names);
  table(a.exact_names
            ? "Kernels (exact names)"
            : "Kernels (names normalised: template arguments and generated suffixes folded)",
        r.kernels);
  table("Memory operations", r.memops);
  table("Runtime / driver API calls", r.api);
  table("CPU ops", r.cpu_ops);
  out += base::StrFormat("\nFindings:\n\n");
  // A finding priced at nothing on both sides (an info-only one) changed nothing to show.
  auto priced = [](const auto& f) { return f.impact_before != 0 || f.impact_after != 0; };
  if (std::none_of(r.findings.begin(), r.findings.end(), priced))
    out += base::StrFormat("(none in either run)\n");
  for (std::string_view status : analysis::kFindingStatuses) {
    for (const auto& f : r.findings) {
      if (f.status != status || !priced(f)) continue;
      std::string where = f.where.python.empty()
                              ? f.where.op
                              : PythonPlace(f.where.python, f.where.caller) +
                                    (f.where.op.empty() ? "" : " > " + f.where.op);
      out += base::StrFormat("  %-10s %-15s %s: %s -> %s  %s\n", f.status.c_str(), f.rule.c_str(),
                             f.title.c_str(), base::FormatDuration(f.impact_before).c_str(),
                             base::FormatDuration(f.impact_after).c_str(),
                             (a.full_names ? where : base::ShortenName(where, 60)).c_str());
    }
  }
  return out;
}

std::string DiffJson(const analysis::DiffReport& r, const DiffView& a) {
  std::string out;
  output::JsonWriter w;
  BeginDocument(w);
  w.Key("before").String(a.before).Key("after").String(a.after);
  w.Key("summary").BeginObject();
  JsonPair(w, "iterations", r.iterations, true);
  JsonPair(w, "iteration_mean_ns", r.iteration_mean_ns, true);
  JsonPair(w, "iteration_median_ns", r.iteration_median_ns, true);
  JsonPair(w, "iteration_p95_ns", r.iteration_p95_ns, true);
  w.Key("gpu_busy_pct").BeginArray();
  for (double v : {r.gpu_busy_pct.before, r.gpu_busy_pct.after}) {
    w.DoubleIf(v >= 0, v);
  }
  w.EndArray();
  JsonPair(w, "kernel_ns", r.kernel_ns, true);
  JsonPair(w, "memcpy_ns", r.memcpy_ns, true);
  JsonPair(w, "api_ns", r.api_ns, true);
  JsonPair(w, "copy_bytes", r.copy_bytes, true);
  JsonPair(w, "wall_ns", r.wall_ns, true);
  w.Key("stages").BeginArray();
  for (const auto& p : r.stages) {
    w.BeginObject();
    for (auto [key, i, all] : {std::tuple{"before", p.before, &r.before.steady.stages},
                               std::tuple{"after", p.after, &r.after.steady.stages}}) {
      w.Key(key);
      if (i < 0) {
        w.Null();
        continue;
      }
      const analysis::Stage& x = (*all)[static_cast<size_t>(i)];
      w.BeginObject().Key("label").String(x.label).Key("kernels").Uint(x.kernels);
      w.Key("repeats").Uint(x.repeats).Key("window_ns").Int(x.dur_ns).EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("phases").BeginArray();
  for (const auto& [b, af] : PhasePairs(r)) {
    w.BeginObject().Key("name").String(b->name);
    JsonPair(w, "steps", {static_cast<double>(b->steps), static_cast<double>(af->steps)}, true);
    JsonPair(
        w, "median_ns",
        {static_cast<double>(b->latency.median_ns), static_cast<double>(af->latency.median_ns)},
        true);
    JsonPair(w, "p95_ns",
             {static_cast<double>(b->latency.p95_ns), static_cast<double>(af->latency.p95_ns)},
             true);
    w.Key("tokens_per_second").BeginArray();
    for (double v : {b->tokens_per_second, af->tokens_per_second}) {
      w.DoubleIf(v >= 0, v);
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Key("verdict").String(r.verdict).Key("basis").String(r.basis).Key("test").String(r.test);
  w.Key("not_comparable_reason").String(r.not_comparable_reason);
  w.Key("period_kernels").BeginArray().Uint(r.period_kernels_before).Uint(r.period_kernels_after);
  w.EndArray();
  JsonPair(w, "warmup_ns", r.warmup_ns, true);
  // The batch sizes (or tokens per step) the verdict is per sample (per token) of; null when the
  // same or unknown.
  w.Key("batch");
  if (r.batch.known()) {
    w.BeginObject().Key("before").Int(r.batch.before).Key("after").Int(r.batch.after);
    w.Key("ratio").Double(r.batch.ratio).Key("op").String(r.batch.op);
    w.Key("unit").String(r.batch.unit).EndObject();
  } else {
    w.Null();
  }
  w.Key("p_value");
  w.DoubleIf(r.p_value >= 0, r.p_value);
  w.EndObject();
  CategoryDiffJson(w, r);
  JsonRows(w, "kernels", r.kernels);
  JsonRows(w, "memops", r.memops);
  JsonRows(w, "api", r.api);
  JsonRows(w, "cpu_ops", r.cpu_ops);
  w.Key("findings").BeginObject();
  for (std::string_view status : analysis::kFindingStatuses) {
    w.Key(status).BeginArray();
    for (const auto& f : r.findings) {
      if (f.status != status) continue;
      w.BeginObject().Key("rule").String(f.rule).Key("title").String(f.title);
      w.Key("impact_ns").BeginArray().Int(f.impact_before).Int(f.impact_after).EndArray();
      WriteWhere(w.Key("where"), f.where);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  out += w.str();
  return out;
}

std::string DiffCsv(const analysis::DiffReport& r) {
  ResultTable t = NamedDiffColumns();
  AddNamedDiffRows(t, CategoryDiffRows(r), "categories");
  AddNamedDiffRows(t, r.kernels, "kernels");
  AddNamedDiffRows(t, r.memops, "memops");
  AddNamedDiffRows(t, r.api, "api");
  AddNamedDiffRows(t, r.cpu_ops, "cpu_ops");
  return t.Csv();
}

}  // namespace gpuscope::render
