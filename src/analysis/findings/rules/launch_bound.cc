// launch-bound: storms of tiny kernels whose launch cost keeps the GPU waiting.

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "analysis/findings/place_advice.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace launch_bound_rule {
namespace {

// A launch call longer than this many typical ones (the window's median kernel launch call), and
// than kSlowLaunchFloorNs, does other work than launching (loading a module, waiting for a full
// queue): not launch cost that capture or fusion removes.
constexpr int64_t kSlowLaunchFactor = 4;
constexpr int64_t kSlowLaunchFloorNs = 20'000;

// The most a launch call of the window may take to count as launch cost.
int64_t LaunchCostLimit(const Context& c) {
  const Trace& t = c.t();
  std::vector<int64_t> calls;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    RowId l = t.kernels.launch[i];
    if (l != kNoRow && c.GpuIn(t.kernels.start_ns[i], l)) calls.push_back(t.api.dur_ns[l]);
  }
  if (calls.empty()) return kSlowLaunchFloorNs;
  auto mid = calls.begin() + static_cast<std::ptrdiff_t>(calls.size() / 2);
  std::nth_element(calls.begin(), mid, calls.end());
  return std::max(kSlowLaunchFloorNs, kSlowLaunchFactor * *mid);
}

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  const int64_t launch_limit = LaunchCostLimit(c);
  int64_t idle = 0;
  size_t count = 0, idle_kernels = 0, slow_launches = 0;
  std::map<model::StringId, std::pair<int64_t, size_t>> kernels;  // name -> (idle before, count)
  // place (user frame name, op name) -> (idle before its kernels, their launch-call time)
  std::map<std::pair<RowId, RowId>, std::pair<int64_t, int64_t>> from;
  std::map<std::pair<RowId, RowId>, RowId> place_row;  // an op row of each place
  auto place_key = [&](RowId op) {
    RowId frame = op == kNoRow ? kNoRow : c.at().UserFrameOfCpu(op);
    return std::make_pair(frame == kNoRow ? kNoRow : t.python.name[frame],
                          op == kNoRow ? kNoRow : t.cpu.name[op]);
  };
  Candidate cand{Make(c, "launch-bound", 0), {}};
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i]) ||
        t.kernels.dur_ns[i] >= c.o().tiny_kernel_ns)
      continue;
    RowId l = t.kernels.launch[i];
    if (l == kNoRow || t.api.dur_ns[l] <= t.kernels.dur_ns[i]) continue;
    if (t.api.dur_ns[l] > launch_limit) {  // the GPU waited for other host work, not a launch
      ++slow_launches;
      continue;
    }
    // Kernels a graph replays have no launch call of their own: the fix is already in place.
    if (c.graphs().kernel_origin[i] >= 0) continue;
    // Every launch-dominated tiny kernel is part of the storm; the GPU idle before them says
    // where it shows on the GPU (on a host-bound run it shows as host time instead).
    // A launch that was set-up (a first launch loading its module) is warm-up's.
    if (claims.ApiTaken(l)) continue;
    int64_t before = c.IdleBefore(t.kernels.device[i], t.kernels.start_ns[i]);
    if (!claims.TakeKernel(i)) continue;
    idle += before;
    ++count;
    idle_kernels += before > 0;
    auto& k = kernels[t.kernels.name[i]];
    k.first += before, ++k.second;
    // Places keyed by rows (the op and its user frame); their names are resolved once below.
    RowId op = t.api.enclosing_op[l];
    auto key = place_key(op);
    auto& place = from[key];
    place.first += before, place.second += t.api.dur_ns[l];
    place_row.emplace(key, op);
    cand.fix.graph_kernels.push_back(i);
    if (claims.TakeApi(l)) {
      // Captured, the launches are one entry of the launch queue: a call that a full queue held
      // no longer waits for a queued op to end.
      cand.fix.api_dur.emplace_back(l, 0);
      cand.fix.unblock_api.push_back(l);
    }
  }
  // A storm: some of them kept the GPU waiting, or they come by the dozen every iteration.
  if (count == 0 || (idle_kernels == 0 && c.PerIteration(static_cast<double>(count)) <
                                              c.o().storm_kernels_per_iteration))
    return;
  Finding& f = cand.finding;
  // The place carrying most of the cost (GPU idle before its kernels), not the most frequent.
  auto top = std::max_element(from.begin(), from.end(), [](auto& a, auto& b) {
    return a.second.first != b.second.first ? a.second.first < b.second.first
                                            : a.second.second < b.second.second;
  });
  RowId top_op = place_row[top->first];
  if (top_op != kNoRow) {
    f.where.op = std::string(t.str(t.cpu.name[top_op]));
    f.where.python = c.at().PythonOf(top_op);
  }
  AdviseAt(c, f, top_op);
  std::vector<std::tuple<int64_t, size_t, std::string>> ranked;
  for (auto& [n, k] : kernels) ranked.emplace_back(k.first, k.second, std::string(t.str(n)));
  std::sort(ranked.rbegin(), ranked.rend());
  f.where.kernel = std::get<2>(ranked.front());
  f.detail = base::Counted(count, "tiny kernel", "tiny kernels") + " (< " +
             base::FormatDuration(c.o().tiny_kernel_ns) + ", launch call longer than the kernel; " +
             c.PerIterationText(static_cast<double>(count)) + "), " + base::FormatDuration(idle) +
             " of GPU idle before them; " +
             (f.where.op.empty() ? std::string("(no op)") : f.where.op) +
             " launches the costliest share";
  if (slow_launches)
    f.detail += "; " + base::Counted(slow_launches, "launch call", "launch calls") + " over " +
                base::FormatDuration(launch_limit) +
                " (4x the typical one) left out: they did other work than launching";
  cand.fix.what =
      "graph-captured / fused: their launch calls cost nothing and they run back to back";
  for (const auto& [ns, k, n] : ranked) {
    (void)ns;
    if (f.evidence.size() >= c.o().evidence) break;
    f.evidence.push_back({0, 0, -1, n + ": " + c.PerIterationText(static_cast<double>(k))});
  }
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace launch_bound_rule

const RuleInfo& LaunchBoundRule() {
  static const RuleInfo rule{
      .id = "launch-bound",
      .title = "Storms of tiny kernels bound by their launch cost",
      .definition =
          "Kernels shorter than the threshold whose launch call took longer than the kernel "
          "itself, but at most 4x the window's median launch call (and at least 20 us), in the "
          "steady state, when the GPU idled right before them. Names the ops/frames that launch "
          "them and the kernels with the most calls per iteration.",
      .impact =
          "replayed: those kernels' launch calls cost nothing and the kernels follow each other "
          "without launch latency (graph capture / fusion); kernel time kept. What launches cost, "
          "not the GPU idle that host work between them causes (that is gpu-idle's).",
      .advice =
          "Fuse the small ops: torch.compile, fused/foreach optimizers, vectorised tensor ops "
          "instead of per-element ones, larger batches; CUDA/HIP graphs remove the per-launch "
          "cost.",
      .options = {{"--tiny-kernel-us", "launch-bound: kernels shorter than this (us)", 10,
                   [](AnalyzeOptions& o, double v) {
                     o.tiny_kernel_ns = static_cast<int64_t>(v * 1e3);
                   }},
                  {"--storm-kernels",
                   "launch-bound: tiny launch-bound kernels per iteration that make a storm "
                   "without GPU idle before them",
                   50, [](AnalyzeOptions& o, double v) { o.storm_kernels_per_iteration = v; }}},
      .detect = &launch_bound_rule::Detect,
      .runtime_advice =
          "Fewer, larger launches: fuse the small kernels, give each launch more work (larger "
          "grids, batching), and capture the launch sequence in a CUDA graph "
          "(cudaStreamBeginCapture / cudaGraphInstantiate / cudaGraphLaunch).",
      .limits =
          "kernels the GPU had queued work before (their launch cost is hidden); kernels at least "
          "--tiny-kernel-us long; launch calls longer than 4x the window's median one (and 20 us): "
          "they load a module or wait for a full queue, work that capture does not remove; first "
          "launches that warm-up holds; launches an earlier rule holds."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
