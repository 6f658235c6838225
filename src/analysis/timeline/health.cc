#include "analysis/timeline/health.h"

#include <algorithm>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/common/call_names.h"
#include "analysis/common/ecosystem.h"
#include "analysis/common/name_memo.h"
#include "analysis/timeline/recording_notes.h"
#include "base/text.h"
#include "model/plausibility.h"

namespace gpuscope::analysis {
namespace {

using model::RowId;

// What recorded the trace, for the command that records more with the same tool.
enum class Tool { kTorch, kRocprof, kNsys, kOther };

Tool ToolOf(const model::Trace& t) {
  const std::string& f = t.meta.format;
  if (f == "kineto") return Tool::kTorch;
  if (f == "nsys") return Tool::kNsys;
  if (f.rfind("roc", 0) == 0 || f == "rpd") return Tool::kRocprof;
  return Tool::kOther;
}

// The option that records `what` with the trace's own tool (all three when it is unknown).
std::string Record(Tool tool, const char* torch, const char* rocprof, const char* nsys) {
  switch (tool) {
    case Tool::kTorch:
      return torch;
    case Tool::kRocprof:
      return rocprof;
    case Tool::kNsys:
      return nsys;
    case Tool::kOther:
      break;
  }
  return std::string("PyTorch: ") + torch + "; rocprofv3: " + rocprof + "; nsys: " + nsys;
}

std::string Pct(uint64_t part, uint64_t whole) {
  return base::FormatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

// What each kind of impossible data (model/plausibility.h) does to the analysis.
// The note's id is the kind's name without its family ("impossible.time_unit": "time-unit").
struct ImpossibleEffect {
  model::ProblemKind kind;
  const char* effect;
};
constexpr ImpossibleEffect kImpossibleEffects[] = {
    {model::kDuplicateEvents,
     "the copies were dropped; if the trace was merged from overlapping files, check that each "
     "file was read once"},
    {model::kStreamOverlap,
     "GPU busy time, idle gaps and the replay assume a stream runs one kernel at a time: "
     "busy time is undercounted and the replay's order is unreliable"},
    {model::kClockBackwards,
     "spans, gaps and idle time that cross the jump are wrong; GPU busy and wall time mix "
     "times from both sides"},
    {model::kLaunchOrder,
     "kernels are tied to the wrong launches: launch latency, the ops and lines kernels are "
     "charged to, and the replay's host edges are unreliable; --align-clocks does not repair it"},
    {model::kZeroDurations,
     "kernel totals, GPU busy time, idle gaps and every finding priced from them are 0 or "
     "meaningless"},
    {model::kTimeUnit,
     "every duration and gap is off by the unit's factor: rates, latencies and thresholds "
     "compare wrong numbers"},
    {model::kNestedSteps,
     "steps that hold others were left out of the iterations; step times and the steady state "
     "rest on the steps inside"},
};

std::string NoteId(std::string_view kind_name) {
  std::string id(kind_name.substr(kind_name.find('.') + 1));
  std::replace(id.begin(), id.end(), '_', '-');
  return id;
}

// Impossible data first: it invalidates more than any recording setting.
void ImpossibleNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  for (const ImpossibleEffect& e : kImpossibleEffects) {
    auto it = t.problems.entries().find(model::ProblemKindName(e.kind));
    if (it == t.problems.entries().end()) continue;
    out.push_back(
        {NoteId(model::ProblemKindName(e.kind)),
         (it->second.count == 1 ? "" : base::FormatCount(it->second.count) + " cases; first: ") +
             it->second.first_example,
         e.effect, "re-record or re-export the trace; do not edit its events"});
  }
}

// GPU activity, runtime calls and their links. (A framework trace with neither launches nor a
// device is a CPU run: nothing is missing.)
void RecordingNotes(const model::Trace& t, Tool tool, std::vector<HealthNote>& out) {
  uint64_t launches = 0;
  NameMemo launch(t, IsLaunchApi);
  for (size_t i = 0; i < t.api.size(); ++i) launches += launch(t.api.name[i]);
  if (t.kernels.size() == 0 && t.memops.size() == 0 && (launches > 0 || !t.devices.empty())) {
    out.push_back({"gpu-activity-not-recorded",
                   launches
                       ? base::FormatCount(launches) + " launch calls but no GPU kernel or copy"
                       : "a GPU is named but no kernel, copy or launch call is recorded",
                   "nothing can be said of the GPU: no busy time, no idle gaps, no kernel findings",
                   Record(tool,
                          "torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                          "ProfilerActivity.CUDA])",
                          "rocprofv3 --kernel-trace --memory-copy-trace --hip-runtime-trace -- CMD",
                          "nsys profile -t cuda,nvtx,osrt --cuda-graph-trace=node CMD")});
  }
  if (t.kernels.size() > 0 && t.api.size() == 0) {
    out.push_back({"runtime-calls-not-recorded",
                   base::FormatCount(t.kernels.size()) + " kernels but no runtime API call",
                   "kernels cannot be tied to the host: no launch cost, no host-side findings, "
                   "the replay has no host to move",
                   Record(tool,
                          "torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                          "ProfilerActivity.CUDA])",
                          "rocprofv3 --kernel-trace --memory-copy-trace --hip-runtime-trace -- CMD",
                          "nsys profile -t cuda,nvtx,osrt CMD")});
  } else if (t.kernels.size() >= 20 && t.api.size() > 0) {
    uint64_t linked = 0;
    for (RowId l : t.kernels.launch) linked += l != model::kNoRow;
    uint64_t missing = t.kernels.size() - linked;
    if (missing * 10 > t.kernels.size()) {
      out.push_back({"launch-records-missing",
                     base::FormatCount(missing) + " of " + base::FormatCount(t.kernels.size()) +
                         " kernels (" + Pct(missing, t.kernels.size()) +
                         ") have no launch call in the trace",
                     "those kernels are not tied to an op or a line, and the replay runs them "
                     "without their host side: the tracer dropped records (a full buffer) or "
                     "the window cut them",
                     Record(tool, "a shorter active window: schedule(wait=1, warmup=1, active=3)",
                            "rocprofv3 --hip-runtime-trace (with --kernel-trace) over a shorter "
                            "run",
                            "nsys profile -t cuda with a shorter --duration")});
    }
  }
}

// What a framework trace can carry: shapes and Python frames.
void FrameworkNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  if (!DetectEcosystem(t).framework) return;
  bool shapes = false;
  for (size_t i = 0; i < t.cpu.size() && !shapes; ++i) {
    shapes = t.cpu.kind[i] == model::CpuRangeKind::kOp && t.cpu.args[i] != 0;
  }
  if (!shapes) {
    out.push_back({"shapes-not-recorded", "no op records its input shapes",
                   "no FLOPs or bytes per op: `roofline` and kernel-efficiency cannot run, "
                   "kernel-outlier cannot tell shapes apart",
                   "torch.profiler.profile(record_shapes=True)"});
  }
  if (t.python.size() == 0) {
    out.push_back({"stacks-not-recorded", "no Python frames",
                   "findings name ops and kernels but not the line of the program",
                   "torch.profiler.profile(with_stack=True)"});
  }
}

// Graph replays without their capture.
void GraphNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  uint64_t graph_launches = CountGraphLaunches(t);
  if (graph_launches > 0 && FindCapturedGraphs(t, t.meta.path).empty()) {
    out.push_back({"graph-capture-missing",
                   base::FormatCount(graph_launches) +
                       " graph launches replay kernels whose capture is not in the trace",
                   "graph kernels are tied to the graph launch only, not to the op and line that "
                   "captured them",
                   "pass the capture trace with --capture CAPTURE_TRACE (vLLM/SGLang: profile the "
                   "start-up that captures the graphs); nsys: --cuda-graph-trace=node"});
  }
}

// The window and its steps.
void WindowNotes(const SteadyState& steady, Tool tool, std::vector<HealthNote>& out) {
  size_t steps = steady.iterations.size();
  bool marked = steady.source.find("whole trace") == std::string::npos &&
                steady.source.find("span of GPU work") == std::string::npos;
  if (marked && steps > 0 && steps < 3) {
    out.push_back({"window-too-short", base::FormatCount(steps) + " step(s) in the window",
                   "warm-up cannot be told from the steady state and step statistics rest on "
                   "too few samples",
                   Record(tool, "schedule(wait=1, warmup=2, active=5) with prof.step() per step",
                          "a longer run, or --collection-period over several steps",
                          "a longer --duration, or NVTX step ranges over several steps")});
  }
  if (marked && steps >= 4) {
    std::vector<int64_t> d;
    for (const auto& s : steady.iterations) d.push_back(s.dur_ns);
    std::vector<int64_t> inner(d.begin() + 1, d.end() - 1);
    std::nth_element(inner.begin(), inner.begin() + inner.size() / 2, inner.end());
    int64_t median = inner[inner.size() / 2];
    std::string cut;
    if (2 * d.front() < median) cut = "the first";
    if (2 * d.back() < median) cut += cut.empty() ? "the last" : " and the last";
    if (!cut.empty()) {
      out.push_back(
          {"steps-cut",
           cut + " step is under half the median step (" + base::FormatDuration(median) + ")",
           "a step cut by the window's edge: left out of the steady state when it "
           "is first, but its kernels may run past the window",
           Record(tool,
                  "start and stop the profiler on step boundaries (schedule + "
                  "prof.step())",
                  "start and stop collection between steps (roctx ranges)",
                  "--capture-range=nvtx on a step range")});
    }
  }
}

// Events of different runs in one trace.
void RunsNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  model::EventGap gap = model::LargestEventGap(t);
  if (gap.SeparatesRuns()) {
    out.push_back({"different-runs",
                   "no event for " + base::FormatDuration(gap.gap()) +
                       " between two groups of "
                       "events",
                   "wall time, GPU busy and idle gaps mix two runs",
                   "analyze each run's trace alone"});
  }
}

}  // namespace

std::vector<HealthNote> CheckHealth(const model::Trace& t, const SteadyState& steady) {
  std::vector<HealthNote> out;
  if (t.summary_only()) return out;
  const Tool tool = ToolOf(t);
  ImpossibleNotes(t, out);
  RecordingIntegrityNotes(t, out);
  RecordingNotes(t, tool, out);
  FrameworkNotes(t, out);
  GraphNotes(t, out);
  WindowNotes(steady, tool, out);
  RunsNotes(t, out);
  return out;
}

}  // namespace gpuscope::analysis
