// allocator: the device allocator called inside the steady state - cudaMalloc/cudaFree and their
// HIP and driver counterparts, which a caching allocator that serves the steady state from its
// cache never calls. A free that is not stream-ordered synchronizes the device (the replay makes
// it wait for the GPU, replay_edges.cc). Priced by replaying the run without these calls.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/common/call_names.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace allocator_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  // Without marked steps there is no steady state to serve from a cache: a one-pass run's
  // allocations are its first (warm-up's when they are long).
  if (c.steady().iterations.empty()) return;
  const Trace& t = c.t();
  struct Place {
    int64_t ns = 0;
    Where where;
  };
  // (user frame, call) -> time: a step's marker around a call outside any op would split one
  // place per step.
  std::map<std::pair<std::string, std::string_view>, Place> places;
  std::vector<RowId> calls;
  size_t allocs = 0, frees = 0, syncing = 0;
  int64_t total = 0;
  for (size_t i = 0; i < t.api.size(); ++i) {
    if (!c.In(t.api.start_ns[i]) || t.api.domain[i] == model::ApiDomain::kOs) continue;
    std::string_view n = t.str(t.api.name[i]);
    if (!IsAllocatorApi(n) || !claims.TakeApi(i)) continue;
    auto r = static_cast<RowId>(i);
    calls.push_back(r);
    bool free = n.find("Free") != std::string_view::npos;
    frees += free, allocs += !free, syncing += IsDeviceFreeApi(n);
    total += t.api.dur_ns[i];
    Where w = c.at().Api(r);
    // Outside any op (empty_cache() calls the runtime directly): the user frame around the call.
    if (w.python.empty()) w.python = c.at().PythonOfApi(r);
    Place& p = places[{w.python, n}];
    p.ns += t.api.dur_ns[i];
    if (p.where.python.empty() && p.where.op.empty()) p.where = std::move(w);
  }
  if (calls.empty()) return;
  Candidate cand{Make(c, "allocator", 0), {}};
  Finding& f = cand.finding;
  auto top = std::max_element(places.begin(), places.end(),
                              [](auto& a, auto& b) { return a.second.ns < b.second.ns; });
  f.where = top->second.where;
  f.detail = base::Counted(allocs, "allocation", "allocations") + " and " +
             base::Counted(frees, "free", "frees") + " (" +
             c.PerIterationText(static_cast<double>(calls.size())) + "), " +
             base::FormatDuration(total) + " in the calls" +
             (syncing ? "; " + base::Counted(syncing, "free synchronizes", "frees synchronize") +
                            " the device"
                      : "") +
             (places.size() > 1 ? "; from " + base::FormatCount(places.size()) + " places" : "");
  for (RowId r : calls) {
    cand.fix.api_dur.emplace_back(r, 0);
    cand.fix.unblock_api.push_back(r);
    claims.Explain(t.api.start_ns[r], t.api.end_ns(r));
  }
  cand.fix.what = "the allocator's calls are gone from the steady state (served from its cache)";
  std::sort(calls.begin(), calls.end(),
            [&](RowId a, RowId b) { return t.api.dur_ns[a] > t.api.dur_ns[b]; });
  for (RowId r : calls)
    AddEvidence(c, f, t.api.start_ns[r], t.api.dur_ns[r], std::string(t.str(t.api.name[r])));
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace allocator_rule

const RuleInfo& AllocatorRule() {
  static const RuleInfo rule{
      .id = "allocator",
      .title = "The device allocator called inside the steady state",
      .definition =
          "Runtime and driver allocation calls inside the steady window: cuda/hipMalloc, "
          "cuda/hipFree, *MallocAsync / *FreeAsync, cudaMallocHost / hipHostMalloc and their "
          "frees, cuMemAlloc / cuMemFree, memory-pool calls. A caching allocator (PyTorch's) "
          "serves a steady state from its cache, so these mean it missed: growing or changing "
          "shapes, fragmentation, torch.cuda.empty_cache() in the loop. A free that is not "
          "stream-ordered synchronizes the device: the replay makes it wait for the GPU's work, as "
          "a synchronize does.",
      .impact =
          "replayed: the calls take no time and wait for nothing (the allocator's cache serves the "
          "step).",
      .advice =
          "Warm up with the largest shapes before the steady state, drop torch.cuda.empty_cache() "
          "from the loop, set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against "
          "fragmentation, and keep shapes static (pad or bucket sequence lengths and batch sizes).",
      .detect = &allocator_rule::Detect,
      .runtime_advice =
          "Allocate once, outside the loop: reuse buffers (a pool or cudaMallocAsync with a "
          "stream-ordered memory pool and a release threshold), never cudaFree inside the steady "
          "state (it synchronizes the device).",
      .limits =
          "a window without marked steps (a one-pass run allocates for the first time; its long "
          "allocation calls are warm-up's); allocation calls outside the steady window; "
          "allocations served by a cache, which make no runtime call; allocated bytes growing step "
          "after step (memory-growth's, from the [memory] events)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
