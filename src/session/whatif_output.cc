#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/registry.h"
#include "analysis/replay/scenario.h"
#include "analysis/roofline/projection.h"
#include "analysis/steps/steady_state.h"
#include "base/allocator_tuning.h"
#include "base/text.h"
#include "render/whatif_view.h"
#include "session/outputs.h"

namespace gpuscope::session {
namespace {

// A factor of the scenario: finite, from 1e-6 (a million times slower) to 1e6 (a million times
// faster); below 1 is a slowdown, replayed and reported as one.
constexpr double kMinFactor = 1e-6, kMaxFactor = 1e6;

base::Status CheckFactor(const std::string& option, double x) {
  if (std::isfinite(x) && x >= kMinFactor && x <= kMaxFactor) return base::Status::Ok();
  return base::Status::Error(option +
                             ": a factor must be a number from 1e-6 to 1e6 (X times "
                             "faster; below 1: 1/X times slower)");
}

// "REGEX=X" -> (REGEX, X); the last '=' splits (a regex may hold one).
base::Status ParseKernels(const std::vector<std::string>& in, analysis::Scenario& s) {
  for (const auto& k : in) {
    size_t eq = k.rfind('=');
    double x = 0;
    if (eq != std::string::npos && eq > 0) {
      try {
        size_t used = 0;
        x = std::stod(k.substr(eq + 1), &used);
        if (used != k.size() - eq - 1) x = 0;
      } catch (const std::exception&) {
        x = 0;
      }
    }
    std::string shown = k.size() <= 80 ? k : k.substr(0, 60) + "..." + k.substr(k.size() - 12);
    if (!(x > 0))
      return base::Status::Error("--kernels '" + shown +
                                 "': expected REGEX=X with X > 0 "
                                 "(e.g. --kernels 'gemm=1.5': kernels matching gemm 1.5x faster)");
    GPUSCOPE_RETURN_IF_ERROR(CheckFactor("--kernels '" + shown + "'", x));
    s.kernels.emplace_back(k.substr(0, eq), x);
  }
  if (std::string bad = analysis::RegexError(s); !bad.empty()) return base::Status::Error(bad);
  return base::Status::Ok();
}

// The request's scenario, its kernel patterns parsed; an error for a speedup <= 0 or a bad
// pattern.
base::StatusOr<analysis::Scenario> ScenarioOf(const WhatIfRequest& r) {
  analysis::Scenario s = r.scenario;
  for (auto [name, x] : {std::pair<const char*, double>{"--gpu-speedup", s.gpu_speedup},
                         {"--copies", s.copies},
                         {"--host-speedup", s.host_speedup}}) {
    GPUSCOPE_RETURN_IF_ERROR(CheckFactor(std::string(name) + " " + base::StrFormat("%g", x), x));
  }
  GPUSCOPE_RETURN_IF_ERROR(ParseKernels(r.kernels, s));
  if (!s.device.empty()) {
    GPUSCOPE_RETURN_IF_ERROR(CheckDevice(s.device));
    // The projection says how fast each kernel runs there; a speedup on top would say it twice.
    if (s.gpu_speedup != 1 || !s.kernels.empty())
      return base::Status::Error("--device " + s.device +
                                 " sets every kernel's time: it does not combine with "
                                 "--gpu-speedup or --kernels");
  }
  for (const auto& rule : s.fixes) {
    if (!analysis::FindRule(rule)) {
      return base::Status::Error("--fix " + rule +
                                 ": not a rule of one trace's analysis (gpuscope help findings "
                                 "lists them; job rules need a job: analyze DIR/)");
    }
  }
  return s;
}

}  // namespace

base::Status CheckScenario(const WhatIfRequest& r) { return ScenarioOf(r).status(); }

base::StatusOr<std::string> WhatIfOutput(const model::Trace& trace, const WhatIfRequest& r) {
  GPUSCOPE_ASSIGN_OR_RETURN(analysis::Scenario s, ScenarioOf(r));
  if (trace.summary_only()) {
    return base::Status::Error(r.path +
                               ": a summary-only source (no events): whatif replays a trace's "
                               "events - profile with a tracer (rocprofv3 --kernel-trace, the "
                               "PyTorch profiler, nsys)");
  }
  base::ReuseLargeBlocks reuse;  // the replay's scratch arrays reused, not faulted afresh
  analysis::SteadyState steps = analysis::FindSteps(trace);
  analysis::SteadyState steady = analysis::ChooseWindow(trace, steps);
  // --fix RULE: the edits analyze prices that rule's findings with (default options).
  analysis::WhatIf fixes;
  if (!s.fixes.empty()) fixes = analysis::FixOf(trace, {}, steps, s.fixes);
  if (!s.device.empty()) {
    // --device: the kernels' times there, then the rules' fixes (a fix's kernel time wins).
    analysis::Attributor at(trace);
    analysis::GraphAttribution graphs = analysis::AttributeGraphKernels(trace, at, {});
    analysis::DeviceProjection p =
        analysis::ProjectOntoDevice(trace, &graphs, s.device, steady.start_ns, steady.end_ns);
    if (!p.error.empty()) return base::Status::Error(r.path + ": " + p.error);
    analysis::WhatIf projected;
    projected.kernel_dur = std::move(p.kernel_dur);
    projected.Merge(fixes);
    fixes = std::move(projected);
  }
  analysis::ScenarioResult result = analysis::RunScenario(trace, steady, s, &fixes);
  if (r.format == "json") return render::WhatIfJson(trace, r.path, s, result);
  if (r.format == "csv") return render::WhatIfCsv(s, result);
  return FitTerminal(render::WhatIfText(trace, r.path, s, result), true);  // wrapped already
}

}  // namespace gpuscope::session
