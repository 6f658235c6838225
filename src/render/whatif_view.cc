#include "render/whatif_view.h"

#include <algorithm>

#include "base/text.h"
#include "output/json_writer.h"
#include "output/text_table.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {
namespace {

double Percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

std::string PathText(const analysis::ScenarioSide& side) {
  std::string out;
  for (size_t k = 0; k < side.path.size() && k < 6; ++k) {
    out += (k ? ", " : "") + side.path[k].category + " " +
           base::FormatFixed(Percent(side.path[k].ns, side.window_ns), 1) + "%";
  }
  return out.empty() ? "-" : out;
}

void PathJson(output::JsonWriter& w, const analysis::ScenarioSide& side) {
  w.BeginArray();
  for (const auto& p : side.path) {
    w.BeginObject().Key("category").String(p.category).Key("ns").Int(p.ns);
    w.Key("percent").Double(Percent(p.ns, side.window_ns)).EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string WhatIfText(const model::Trace& t, const std::string& path, const analysis::Scenario& s,
                       const analysis::ScenarioResult& r) {
  std::string out = base::StrFormat("%s  (%s)\n\n", path.c_str(), t.meta.format.c_str());
  auto kv = [&](const char* k, const std::string& v) {
    out += base::StrFormat("  %-16s %s\n", k, v.c_str());
  };
  kv("Scenario", s.Text());
  kv("Window", r.window + (r.steps ? ", " + base::FormatCount(r.steps) + " steps" : ""));
  out += base::StrFormat("\n  %-16s %14s %14s %14s\n", "", "before", "after", "change");
  auto row = [&](const char* k, int64_t b, int64_t a) {
    out += base::StrFormat("  %-16s %14s %14s %14s\n", k, base::FormatDuration(b).c_str(),
                           base::FormatDuration(a).c_str(),
                           (base::FormatFixed(Percent(a - b, b), 1) + "%").c_str());
  };
  row("Window", r.before.window_ns, r.after.window_ns);
  if (r.steps) row("Per step", r.before.step_ns, r.after.step_ns);
  out += "\n";
  if (r.saving_ns() >= 0) {
    kv("Saves", base::FormatDuration(r.saving_ns()) + " (" +
                    base::FormatFixed(Percent(r.saving_ns(), r.before.window_ns), 1) +
                    "% of the window)");
  } else {  // a factor below 1: slower
    kv("Costs", base::FormatDuration(-r.saving_ns()) + " more (" +
                    base::FormatFixed(Percent(-r.saving_ns(), r.before.window_ns), 1) +
                    "% of the window: a slowdown)");
  }
  kv("Replay edits", r.edits);
  kv("Path after", PathText(r.after));
  kv("Path before", PathText(r.before));
  return base::WrapLongLines(out, std::max<size_t>(60, output::TerminalWidth()));
}

std::string WhatIfJson(const model::Trace& t, const std::string& path, const analysis::Scenario& s,
                       const analysis::ScenarioResult& r) {
  output::JsonWriter w;
  BeginDocument(w).Key("source").String(path).Key("format").String(t.meta.format);
  w.Key("scenario").String(s.Text());
  w.Key("window").BeginObject().Key("source").String(r.window).Key("steps").Uint(r.steps);
  w.EndObject();
  auto side = [&](const char* k, const analysis::ScenarioSide& x) {
    w.Key(k).BeginObject().Key("window_ns").Int(x.window_ns).Key("step_ns").Int(x.step_ns);
    w.Key("critical_path");
    PathJson(w, x);
    w.EndObject();
  };
  side("before", r.before);
  side("after", r.after);
  w.Key("saving_ns").Int(r.saving_ns());
  w.Key("saving_percent").Double(Percent(r.saving_ns(), r.before.window_ns));
  w.Key("edits").String(r.edits);
  w.Key("critical_path");
  PathJson(w, r.after);
  w.EndObject();
  return w.str() + "\n";
}

std::string WhatIfCsv(const analysis::Scenario& s, const analysis::ScenarioResult& r) {
  ResultTable table({{"side"},
                     {"scenario"},
                     {"window_ns"},
                     {"step_ns"},
                     {"steps"},
                     {"saving_ns"},
                     {"critical_path"}});
  auto row = [&](const char* side, const analysis::ScenarioSide& x, int64_t saving) {
    table.AddRow({Cell::Text(side), Cell::Text(s.Text()), Cell::Int(x.window_ns),
                  Cell::Int(x.step_ns), Cell::Uint(r.steps), Cell::Int(saving),
                  Cell::Text(PathText(x))});
  };
  row("before", r.before, 0);
  row("after", r.after, r.saving_ns());
  return table.Csv();
}

namespace {

// The scenarios: the option and the replay's edit. The one place that says what each does.
struct ScenarioHelp {
  const char* option;
  const char* change;
};
constexpr ScenarioHelp kScenarios[] = {
    {"--gpu-speedup X", "every kernel launched in the steady window runs in its time / X"},
    {"--kernels REGEX=X",
     "kernels whose name matches REGEX (RE2 syntax, searched anywhere in the name, in time linear "
     "in the name; at most 1000 characters) run in their "
     "time / X; repeatable, factors of several matches multiply, and multiply --gpu-speedup"},
    {"--copies X", "every copy and memset runs in its time / X"},
    {"--host-speedup X",
     "the host work between runtime calls on every thread (Python, op dispatch) takes its time "
     "/ X; the runtime calls keep theirs"},
    {"--no-syncs",
     "synchronize calls (cuda/hipStreamSynchronize, DeviceSynchronize, EventSynchronize) no "
     "longer wait for the GPU; they keep their return latency"},
    {"--graphs",
     "kernels replayed as one graph: per-kernel launch calls cost nothing and kernels start "
     "behind the one before at the device's dispatch gap, without launch latency"},
    {"--without-tracer",
     "the run as it would go without the tracer's spacing: the kernels a graph launch replays, "
     "which a ROCm tracer spaced evenly to time them (health note tracer-overhead), start 1 us "
     "behind the one before; the tracer's overhead records are not placed on a thread, so they "
     "stay (their total is in the note)"},
    {"--device NAME",
     "kernels projected onto that GPU (gpuscope help roofline lists them) through the roofline's "
     "work models: a modelled op keeps its share of the roof (compute-bound work scales with the "
     "peak FLOP/s of its data type, memory-bound work with HBM bandwidth), a kernel without a "
     "model scales with HBM bandwidth, none gets shorter than 2 us (one within 2 us keeps its "
     "time); copies, "
     "launch costs, latencies and host work unchanged; not with --gpu-speedup or --kernels"},
    {"--fix RULE",
     "the fix analyze prices RULE's findings with (gpuscope help findings: 'priced by'), every "
     "finding of the rule in the steady window; repeatable, combines with the others"},
};

}  // namespace

std::string WhatIfHelp(const std::string& format) {
  if (format == "json" || format == "csv") {
    ResultTable table({{"option"}, {"change"}});
    for (const auto& h : kScenarios) table.AddRow({Cell::Text(h.option), Cell::Text(h.change)});
    if (format == "csv") return table.Csv();
    return HelpTopicJson("whatif", "scenarios", table) + "\n";
  }
  std::string out =
      "gpuscope whatif TRACE [SCENARIO...] [--format table|csv|json]\n\n"
      "Replays the steady window of TRACE (as analyze finds it) without and with the scenario and "
      "prints the window, the step time, the saving and the critical path before and after. "
      "Scenarios combine.\n\n";
  for (const auto& h : kScenarios) out += std::string("  ") + h.option + ": " + h.change + "\n";
  out +=
      "\nWhat the replay assumes (the same replay prices analyze's findings): each host thread "
      "runs its calls in order with the host work between them; a GPU op starts after its "
      "launch call plus the launch latency, after the op before it on its stream (plus the "
      "device's dispatch gap when it was queued), and after the other stream's op it waited for "
      "(recorded stream waits, else inferred ones); a synchronize or blocking copy ends when the "
      "GPU work it waited for ends. Work the trace does not show (other processes, clock "
      "throttling) stays as observed. Not modelled: moving work between streams, contention "
      "between concurrent kernels (a faster kernel frees no bandwidth for its neighbours), "
      "memory limits. The replay's own checks: on simulated runs (jittered dispatch gaps, "
      "latencies, a bounded launch queue, event waits, a communication stream) --gpu-speedup 2 "
      "and --host-speedup 2 predict the changed run within 15%; no edit saves more than the time "
      "it removes.\n";
  return out;
}

}  // namespace gpuscope::render
