#include "render/info_view.h"

#include <cstdio>

#include "base/text.h"
#include "output/json_writer.h"
#include "render/analysis_json.h"
#include "render/health_view.h"
#include "render/result_table.h"
#include "render/schema_version.h"

namespace gpuscope::render {
namespace {

std::string DeviceLine(const model::Device& d) {
  std::string s =
      std::to_string(d.id) + ": " + d.name + " (" + std::string(model::VendorName(d.vendor));
  if (d.compute_units > 0)
    s += ", " + std::to_string(d.compute_units) +
         (d.vendor == model::Vendor::kAmd ? " CUs" : " SMs");
  if (d.total_memory > 0) s += ", " + base::FormatBytes(d.total_memory);
  if (d.compute_major >= 0)
    s += ", compute " + std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor);
  if (d.warp_size > 0) s += ", warp " + std::to_string(d.warp_size);
  return s + ")";
}

// Per GPU: launch call start -> op start, its verdict, and what --align-clocks shifted.
std::string LaunchToStartText(const model::Trace& t, const analysis::TraceSummary& s) {
  std::string out;
  if (!s.clocks.devices.empty()) {
    out += base::StrFormat("\nLaunch to start (per GPU: launch call start -> op start)\n");
    for (const auto& d : s.clocks.devices) {
      out += base::StrFormat(
          "  GPU %-3d %s ops: p10 %s, median %s, p90 %s, max %s; %s queued behind work, %s "
          "launched onto an idle GPU\n",
          d.device, base::FormatCount(d.ops).c_str(), base::FormatDuration(d.p10_ns).c_str(),
          base::FormatDuration(d.median_ns).c_str(), base::FormatDuration(d.p90_ns).c_str(),
          base::FormatDuration(d.max_ns).c_str(), base::FormatCount(d.queued).c_str(),
          base::FormatCount(d.idle_launched).c_str());
      out += base::StrFormat("          %s: %s\n",
                             std::string(analysis::ClockVerdictName(d.verdict)).c_str(),
                             d.explanation.c_str());
    }
  }
  for (const model::ClockShift& c : t.meta.clock_shifts) {
    out += base::StrFormat(
        "  GPU %-3d shifted by +%s by --align-clocks (the figures above are after it)\n", c.device,
        base::FormatDuration(c.shift_ns).c_str());
  }
  return out;
}

}  // namespace

std::string InfoText(const model::Trace& t, const analysis::TraceSummary& s) {
  std::string out;
  auto kv = [&](const char* k, const std::string& v) {
    out += base::StrFormat("%-18s %s\n", k, v.c_str());
  };
  kv("File", t.meta.path);
  kv("Format", t.meta.format + " (" + t.meta.format_version + ")");
  kv("Written by", t.meta.producer);
  kv("Clock", t.meta.clock);
  if (t.meta.base_time_ns)
    kv("Base time", std::to_string(t.meta.base_time_ns) + " ns since the epoch");
  if (t.devices.empty() && (t.kernels.size() > 0 || t.memops.size() > 0)) {
    kv("Devices", "not described by the trace (its GPU work names the devices by number only)");
  } else if (t.devices.empty()) {
    kv("Devices", "none described (CPU-only trace?)");
  } else {
    for (size_t i = 0; i < t.devices.size(); ++i) kv(i ? "" : "Devices", DeviceLine(t.devices[i]));
  }
  kv("Time span", base::FormatDuration(s.last_ns - s.first_ns) + " (" + std::to_string(s.first_ns) +
                      " .. " + std::to_string(s.last_ns) + " ns)");
  kv("Tracks", base::FormatCount(s.cpu_threads) + " CPU threads, " +
                   base::FormatCount(s.gpu_streams) + " GPU streams");
  if (t.summary_only()) {
    kv("Summary only", std::to_string(t.summary.size()) +
                           " rows of totals, no timeline: `gpuscope stats` prints them; other "
                           "commands need the trace");
  }
  out += base::StrFormat("\nEvents\n");
  for (const auto& [k, v] : s.counts) {
    if (v) out += base::StrFormat("  %-46s %12s\n", k.c_str(), base::FormatCount(v).c_str());
  }
  for (const auto& [k, v] : t.record_counts)
    out += base::StrFormat("  %-46s %12s\n", k.c_str(), base::FormatCount(v).c_str());
  if (!t.meta.not_collected.empty()) {
    out += base::StrFormat("\nNot collected\n");
    for (const auto& what : t.meta.not_collected) out += base::StrFormat("  %s\n", what.c_str());
  }
  out += base::StrFormat("\nLinks\n");
  auto frac = [](uint64_t a, uint64_t b) {
    return base::FormatCount(a) + " of " + base::FormatCount(b) +
           (b ? " (" + base::FormatFixed(100.0 * a / b, 1) + "%)" : "");
  };
  out += base::StrFormat("  %-36s %s\n", "kernels -> launching API call",
                         frac(s.kernels_linked, t.kernels.size()).c_str());
  out += base::StrFormat("  %-36s %s\n", "memory ops -> launching API call",
                         frac(s.memops_linked, t.memops.size()).c_str());
  out += base::StrFormat("  %-36s %s\n", "API calls -> enclosing CPU op",
                         frac(s.api_in_cpu_op, t.api.size()).c_str());
  out += base::StrFormat("  %-36s %s\n", "CPU ranges -> enclosing Python frame",
                         frac(s.cpu_ops_in_python, t.cpu.size()).c_str());
  out += base::StrFormat("\nIterations         ");
  if (s.iterations.empty()) {
    out += base::StrFormat("none marked (no ProfilerStep#N ranges)\n");
  } else {
    int64_t total = 0;
    for (const auto& it : s.iterations) total += it.dur_ns;
    out += base::StrFormat(
        "%zu (ProfilerStep#%lld .. #%lld), mean %s\n", s.iterations.size(),
        static_cast<long long>(s.iterations.front().number),
        static_cast<long long>(s.iterations.back().number),
        base::FormatDuration(total / static_cast<int64_t>(s.iterations.size())).c_str());
  }
  out += LaunchToStartText(t, s);
  if (!s.step_source.empty()) {
    std::string steps = base::FormatCount(s.steps) + " (" + s.step_source + ")";
    if (s.steps == 0) steps = s.step_source;
    for (const auto& [name, n] : s.phase_steps) steps += "; " + name + " " + base::FormatCount(n);
    out += base::StrFormat("Steps              %s\n", steps.c_str());
    if (!s.structure.empty())
      out += base::StrFormat("Structure          %s in a step (layers)\n", s.structure.c_str());
  }
  if (s.graph_captures || s.graph_launches) {
    out += base::StrFormat(
        "Graphs             %s captured (%s launches recorded), %s graph launches\n",
        base::FormatCount(s.graph_captures).c_str(), base::FormatCount(s.captured_launches).c_str(),
        base::FormatCount(s.graph_launches).c_str());
  }
  out += HealthText(s.health);
  out += base::StrFormat("\nProblems           ");
  bool clock_problem = s.clocks.problem();
  if (t.problems.empty() && t.meta.import_error.empty() && !clock_problem) {
    out += base::StrFormat("none\n");
  } else {
    out += base::StrFormat("\n");
    if (!t.meta.import_error.empty())
      out += base::StrFormat("  import stopped: %s\n", t.meta.import_error.c_str());
    for (const auto& [kind, e] : t.problems.entries()) {
      out += base::StrFormat("  %-30s %10s  first: %s\n", kind.c_str(),
                             base::FormatCount(e.count).c_str(), e.first_example.c_str());
    }
    for (const auto& d : s.clocks.devices) {
      if (d.verdict != analysis::ClockVerdict::kOk)
        out += base::StrFormat(
            "  clock.%-24s %10s  GPU %d: see Launch to start above\n",
            d.verdict == analysis::ClockVerdict::kClockOffset ? "gpu_before_launch" : "idle_delay",
            base::FormatCount(d.verdict == analysis::ClockVerdict::kClockOffset ? d.before_launch
                                                                                : d.idle_delayed)
                .c_str(),
            d.device);
    }
  }
  out += base::StrFormat("\nModel memory       %s\n",
                         base::FormatBytes(static_cast<int64_t>(s.model_bytes)).c_str());
  return out;
}

namespace {

// info --format json, in three parts: what the trace is and holds; its steps, health and
// graphs; its clocks and problems.
void ContentsJson(output::JsonWriter& w, const model::Trace& t, const analysis::TraceSummary& s) {
  w.Key("source").BeginObject().Key("path").String(t.meta.path).Key("format").String(t.meta.format);
  w.Key("format_version").String(t.meta.format_version).Key("producer").String(t.meta.producer);
  w.Key("clock").String(t.meta.clock).Key("base_time_ns").Int(t.meta.base_time_ns).EndObject();
  w.Key("devices").BeginArray();
  for (const auto& d : t.devices) {
    w.BeginObject().Key("id").Int(d.id).Key("name").String(d.name);
    w.Key("vendor").String(model::VendorName(d.vendor)).Key("compute_units").Int(d.compute_units);
    w.Key("total_memory").Int(d.total_memory).Key("warp_size").Int(d.warp_size).EndObject();
  }
  w.EndArray();
  w.Key("span").BeginObject().Key("first_ns").Int(s.first_ns).Key("last_ns").Int(s.last_ns);
  w.Key("duration_ns").Int(s.last_ns - s.first_ns).EndObject();
  w.Key("tracks")
      .BeginObject()
      .Key("cpu_threads")
      .Uint(s.cpu_threads)
      .Key("gpu_streams")
      .Uint(s.gpu_streams)
      .EndObject();
  w.Key("counts").BeginObject();
  for (const auto& [k, v] : s.counts) w.Key(k).Uint(v);
  w.EndObject();
  w.Key("summary_only").Bool(t.summary_only());
  w.Key("not_collected").BeginArray();
  for (const auto& what : t.meta.not_collected) w.String(what);
  w.EndArray();
  w.Key("records").BeginObject();
  for (const auto& [k, v] : t.record_counts) w.Key(k).Uint(v);
  w.EndObject();
  w.Key("links").BeginObject().Key("kernels_with_launch").Uint(s.kernels_linked);
  w.Key("memops_with_launch").Uint(s.memops_linked).Key("api_in_cpu_op").Uint(s.api_in_cpu_op);
  w.Key("cpu_ranges_in_python_frame").Uint(s.cpu_ops_in_python).EndObject();
}

void StepsJson(output::JsonWriter& w, const analysis::TraceSummary& s) {
  w.Key("iterations").BeginArray();
  for (const auto& it : s.iterations) {
    w.BeginObject();
    WriteIterationTimes(w, it);
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps").BeginObject().Key("source").String(s.step_source).Key("count").Uint(s.steps);
  w.Key("structure").String(s.structure);
  w.Key("phases").BeginObject();
  for (const auto& [name, n] : s.phase_steps) w.Key(name).Uint(n);
  w.EndObject().EndObject();
  HealthJson(w, s.health);
  w.Key("graphs").BeginObject().Key("captures").Uint(s.graph_captures);
  w.Key("captured_launches").Uint(s.captured_launches).Key("launches").Uint(s.graph_launches);
  w.EndObject();
}

void ClocksAndProblemsJson(output::JsonWriter& w, const model::Trace& t,
                           const analysis::TraceSummary& s) {
  w.Key("clocks").BeginArray();
  for (const auto& d : s.clocks.devices) {
    w.BeginObject().Key("device").Int(d.device).Key("ops").Uint(d.ops);
    w.Key("launch_to_start_ns").BeginObject().Key("p10").Int(d.p10_ns);
    w.Key("median").Int(d.median_ns).Key("p90").Int(d.p90_ns).Key("max").Int(d.max_ns).EndObject();
    w.Key("before_launch").Uint(d.before_launch).Key("max_before_ns").Int(d.max_before_ns);
    w.Key("idle_launched").Uint(d.idle_launched).Key("idle_delayed").Uint(d.idle_delayed);
    w.Key("idle_launch_median_ns").Int(d.idle_launch_median_ns);
    w.Key("idle_in_call").Uint(d.idle_in_call).Key("idle_ns").Int(d.idle_ns);
    w.Key("idle_wait_min_ns").Int(d.idle_wait_min_ns).Key("idle_wait_median_ns");
    w.Int(d.idle_wait_median_ns).Key("idle_wait_max_ns").Int(d.idle_wait_max_ns);
    w.Key("queued").Uint(d.queued).Key("max_queue_ns").Int(d.max_queue_ns);
    w.Key("verdict")
        .String(analysis::ClockVerdictName(d.verdict))
        .Key("explanation")
        .String(d.explanation)
        .EndObject();
  }
  w.EndArray();
  // What --align-clocks shifted (empty without it, or when nothing started before its launch).
  w.Key("clock_shifts").BeginArray();
  for (const model::ClockShift& c : t.meta.clock_shifts)
    w.BeginObject().Key("device").Int(c.device).Key("shift_ns").Int(c.shift_ns).EndObject();
  w.EndArray();
  w.Key("import_error");
  w.StringIf(!t.meta.import_error.empty(), t.meta.import_error);
  w.Key("problems").BeginArray();
  for (const auto& [kind, e] : t.problems.entries()) {
    w.BeginObject().Key("kind").String(kind).Key("count").Uint(e.count);
    w.Key("first").String(e.first_example).EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string InfoJson(const model::Trace& t, const analysis::TraceSummary& s) {
  output::JsonWriter w;
  BeginDocument(w);
  ContentsJson(w, t, s);
  StepsJson(w, s);
  ClocksAndProblemsJson(w, t, s);
  w.EndObject();
  return w.str();
}

std::string InfoCsv(const model::Trace& t, const analysis::TraceSummary& s) {
  std::string out;
  ResultTable c({{"key"}, {"value"}});
  auto row = [&](std::string k, std::string v) {
    c.AddRow({Cell::Text(std::move(k)), Cell::Text(std::move(v))});
  };
  row("path", t.meta.path);
  row("format", t.meta.format);
  row("format_version", t.meta.format_version);
  row("producer", t.meta.producer);
  row("first_ns", std::to_string(s.first_ns));
  row("last_ns", std::to_string(s.last_ns));
  for (const auto& d : t.devices) row("device." + std::to_string(d.id), d.name);
  for (const auto& [k, v] : s.counts) row("count." + k, std::to_string(v));
  for (const auto& [k, v] : t.record_counts) row("records." + k, std::to_string(v));
  for (const auto& what : t.meta.not_collected) row("not_collected", what);
  row("iterations", std::to_string(s.iterations.size()));
  for (const auto& d : s.clocks.devices)
    row("clock.gpu" + std::to_string(d.device),
        std::string(analysis::ClockVerdictName(d.verdict)) + ": " + d.explanation);
  for (const auto& [kind, e] : t.problems.entries())
    row("problem." + kind, std::to_string(e.count));
  if (!t.meta.import_error.empty()) row("import_error", t.meta.import_error);
  out += c.Csv();
  return out;
}

}  // namespace gpuscope::render
