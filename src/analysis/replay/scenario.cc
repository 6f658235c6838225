#include "analysis/replay/scenario.h"

#include <cmath>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/common/tracer_spacing.h"
#include "analysis/replay/what_if.h"
#include "base/pattern.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// 2, 1.50, 0.001 (a factor of 1e-6 is not "0.00"), 1e+300 (not 301 digits; no cast of a value
// beyond int64_t).
std::string Factor(double x) {
  if (!(std::fabs(x) < 1e15)) return base::StrFormat("%g", x);
  if (x == std::floor(x)) return base::FormatFixed(x, 0);
  return x >= 0.01 ? base::FormatFixed(x, 2) : base::StrFormat("%g", x);
}

int64_t Scaled(int64_t ns, double speedup) {
  return static_cast<int64_t>(static_cast<double>(ns) / speedup + 0.5);
}

// The edits of the scenario on the ops of the window (a GPU op by its launch's start, as the
// replay places it).
WhatIf Edits(const model::Trace& t, int64_t w0, int64_t w1, const Scenario& s) {
  WhatIf f;
  f.what = s.Text();
  std::vector<std::pair<base::Pattern, double>> patterns;
  for (const auto& [re, x] : s.kernels) {
    auto p = base::Pattern::Compile(re, "--kernels");
    if (p.ok()) patterns.emplace_back(std::move(p).value(), x);  // checked by RegexError
  }
  std::unordered_map<model::StringId, double> by_name;  // each distinct name matched once
  // A GPU op is the window's when it runs or was launched in it (as the replay takes it: the
  // first kernels of a window of GPU work were launched just before it).
  auto in = [&](int64_t start, model::RowId launch) {
    int64_t at = LaunchedAt(t, launch, start);
    return (at >= w0 && at < w1) || (start >= w0 && start < w1);
  };
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    if (!in(k.start_ns[i], k.launch[i])) continue;
    double x = s.gpu_speedup;
    if (!patterns.empty()) {
      auto [it, fresh] = by_name.emplace(k.name[i], 1.0);
      if (fresh) {
        std::string_view name = t.str(k.name[i]);
        for (const auto& [re, px] : patterns)
          if (re.Search(name)) it->second *= px;
      }
      x *= it->second;
    }
    if (x != 1) f.kernel_dur.emplace_back(i, Scaled(k.dur_ns[i], x));
    if (s.graphs) f.graph_kernels.push_back(i);
  }
  if (s.without_tracer) {
    for (size_t i : FindTracerSpacing(t).spaced)
      if (in(k.start_ns[i], k.launch[i])) f.kernel_gap.emplace_back(i, kGraphDispatchNs);
  }
  const auto& m = t.memops;
  for (size_t i = 0; s.copies != 1 && i < m.size(); ++i)
    if (in(m.start_ns[i], m.launch[i])) f.memop_dur.emplace_back(i, Scaled(m.dur_ns[i], s.copies));
  for (size_t i = 0; (s.no_syncs || s.graphs) && i < t.api.size(); ++i) {
    if (t.api.start_ns[i] < w0 || t.api.start_ns[i] >= w1) continue;
    std::string_view n = t.str(t.api.name[i]);
    auto row = static_cast<model::RowId>(i);
    if (s.no_syncs && IsSyncApi(n)) f.unblock_api.push_back(row);
    // A graph replays its kernels from one call: the per-kernel launch calls cost nothing.
    if (s.graphs && IsLaunchApi(n) && !IsGraphLaunchApi(n)) f.api_dur.emplace_back(row, 0);
  }
  if (s.host_speedup != 1) {
    for (model::TrackId tr = 0; tr < t.tracks.size(); ++tr) {
      if (t.tracks[tr].kind == model::TrackKind::kCpuThread)
        f.host_scale.push_back({tr, w0, w1, 1.0 / s.host_speedup, false});
    }
  }
  return f;
}

}  // namespace

std::string Scenario::Text() const {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  if (gpu_speedup != 1) add("--gpu-speedup " + Factor(gpu_speedup));
  for (const auto& [re, x] : kernels) add("--kernels '" + re + "=" + Factor(x) + "'");
  if (copies != 1) add("--copies " + Factor(copies));
  if (host_speedup != 1) add("--host-speedup " + Factor(host_speedup));
  if (no_syncs) add("--no-syncs");
  if (graphs) add("--graphs");
  if (without_tracer) add("--without-tracer");
  for (const auto& rule : fixes) add("--fix " + rule);
  if (!device.empty()) add("--device " + device);
  return out.empty() ? "nothing changed" : out;
}

bool Scenario::empty() const {
  return gpu_speedup == 1 && kernels.empty() && copies == 1 && host_speedup == 1 && !no_syncs &&
         !graphs && !without_tracer && fixes.empty() && device.empty();
}

std::string RegexError(const Scenario& s) {
  for (const auto& [re, x] : s.kernels) {
    std::string shown = re.size() <= 60 ? re : re.substr(0, 60) + "...";
    auto p = base::Pattern::Compile(re, "--kernels '" + shown + "'");
    if (!p.ok()) return p.status().message();
  }
  return "";
}

ScenarioResult RunScenario(const model::Trace& t, const SteadyState& steady, const Scenario& s,
                           const WhatIf* extra) {
  ScenarioResult r;
  r.window = steady.source;
  r.steps = steady.iterations.empty() ? 0 : steady.steady_count();
  ReplayGraph graph(t, steady.start_ns, steady.end_ns);
  WhatIf fix = Edits(t, steady.start_ns, steady.end_ns, s);
  if (extra) fix.Merge(*extra);
  r.edits = fix.Describe();
  auto side = [&](const WhatIf* f) {
    ReplayResult rr = graph.Replay(f, true);
    ScenarioSide out;
    out.window_ns = rr.window_ns;
    out.path = std::move(rr.path);
    return out;
  };
  r.before = side(nullptr);
  r.after = side(&fix);
  // Per step: the steps' measured mean before (the number analyze shows: one computation,
  // Latencies), after it that mean changed as the replay changed the window. The replayed
  // window over the step count would say another mean (gaps between steps, the replay's own
  // approximation) for the same run.
  if (r.steps) {
    r.before.step_ns = steady.latency.mean_ns;
    r.after.step_ns = r.before.window_ns > 0
                          ? static_cast<int64_t>(static_cast<double>(r.before.step_ns) *
                                                     static_cast<double>(r.after.window_ns) /
                                                     static_cast<double>(r.before.window_ns) +
                                                 0.5)
                          : r.before.step_ns;
  }
  return r;
}

}  // namespace gpuscope::analysis
