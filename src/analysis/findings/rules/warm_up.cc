// warm-up: the one-time costs inside the window (steps/one_time.h), reported once with their
// parts; every other finding, the verdict and the critical path see the window without them.

#include <algorithm>
#include <map>

#include "analysis/findings/rules/rule_checks.h"
#include "base/text.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace warm_up_rule {
namespace {

void Detect(const Context& c, Claims& claims, std::vector<Candidate>& out) {
  // The one-time costs were found with the window (steps/one_time.h) and are left out of what
  // the other rules see (Context::In, the gaps); here they are reported, once, with their parts.
  // The recording's parts (a wait for GPU work the trace does not hold) are left out of the window,
  // but they are no cost of the program: `analyze`'s window line names them, not this finding.
  const OneTime one = c.steady().one_time.ProgramOnly();
  if (one.empty()) return;
  Candidate cand{Make(c, "warm-up", 0), c.OneTimeFix(true)};
  for (const OneTimePart& p : one.parts) {
    if (p.call != kNoRow) claims.TakeApi(p.call);
    claims.Explain(p.start_ns, p.end_ns);
  }
  Finding& f = cand.finding;
  f.detail = base::FormatDuration(one.ns) + " of the window is one-time, left out of the other " +
             "findings and the verdict:";
  std::vector<OneTime::Kind> kinds = one.Kinds();
  for (size_t k = 0; k < kinds.size() && k < 4; ++k) {
    f.detail += (k ? ", " : " ") + kinds[k].what + " " + base::FormatDuration(kinds[k].ns) + " (x" +
                base::FormatCount(kinds[k].n) + ")";
  }
  // Which ops' first calls, most time first.
  std::map<std::string, std::pair<int64_t, uint64_t>> ops;
  for (const OneTimePart& p : one.parts)
    if (!p.op.empty()) ops[p.op].first += p.end_ns - p.start_ns, ++ops[p.op].second;
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [op, v] : ops) ranked.emplace_back(v.first, op);
  std::sort(ranked.rbegin(), ranked.rend());
  for (size_t k = 0; k < ranked.size() && k < 4; ++k)
    f.detail += (k ? ", " : "; first calls of ") + ranked[k].second + " x" +
                base::FormatCount(ops[ranked[k].second].second);
  f.where.op = kinds.front().what;
  std::vector<const OneTimePart*> longest;
  for (const OneTimePart& p : one.parts) longest.push_back(&p);
  std::sort(longest.begin(), longest.end(), [](const OneTimePart* a, const OneTimePart* b) {
    return a->end_ns - a->start_ns > b->end_ns - b->start_ns;
  });
  for (const OneTimePart* p : longest)
    AddEvidence(c, f, p->start_ns, p->end_ns - p->start_ns, p->op.empty() ? p->what : p->op);
  out.push_back(std::move(cand));
}

}  // namespace
}  // namespace warm_up_rule

const RuleInfo& WarmUpRule() {
  static const RuleInfo rule{
      .id = "warm-up",
      .title = "One-time costs inside the profiled window",
      .definition =
          "What a run pays once, found in any window (a one-pass run without steps too): runtime "
          "calls that set up (module loading, stream and context creation, library handles: "
          "cudnnCreate, cublasCreate ...), the first of their name of 100 us or more, or 1 ms or "
          "more; in a one-pass "
          "window (no steps), allocation calls of "
          "1 ms or more (a caching allocator's first growth); a kernel's first launch call of 1 ms "
          "or more and 20x the "
          "median launch (lazy module loading: a launch call, never launch latency); compilation "
          "or autotuning ranges and the compilers' Python frames of 1 ms or more (torch.compile, "
          "Triton, nvFuser, cuDNN find); a TorchScript first run (the host pause of 1 ms or more "
          "before the first call of a scripted function, one holding the profiling executor's "
          "fallback_function); in a one-pass window, an op's first call with its arguments of 1 ms "
          "or more and 10x the median of the op's other calls, not waiting for the GPU "
          "(cuDNN/MIOpen set-up and "
          "benchmark runs, lazy initialisation, first allocations); without GPU ops recorded, the "
          "host's start-up before its first launch or copy call. Their time is left out of every "
          "other finding, the verdict, the critical path and the stalls: `analyze` names the "
          "window's steady part and what it left out.",
      .impact =
          "replayed: the one-time calls and host time take no time (done before the window), a "
          "kernel whose launch loaded its module starts a typical launch latency after it; a "
          "share of the window as it ran. The replay with them done before is every other "
          "finding's baseline.",
      .advice =
          "Profile after warm-up: torch.profiler schedule(wait=1, warmup=1, active=3) with "
          "prof.step() per step, or run the model once before profiling; keep compiled kernels in "
          "a cache (TORCHINDUCTOR_CACHE_DIR, Triton's cache); a cold start that matters in "
          "production is its own problem (CUDA_MODULE_LOADING=EAGER loads modules at start-up).",
      .detect = &warm_up_rule::Detect,
      .runtime_advice =
          "Profile after warm-up: run the work once before the profiled region (cudaProfilerStart "
          "after it, nsys --capture-range=cudaProfilerApi); CUDA_MODULE_LOADING=EAGER loads "
          "modules at start-up.",
      .limits =
          "each part under 1 ms; a first call whose op has no other call to compare it with; "
          "the later calls of compiled code, which compile nothing; a window with marked steps "
          "already leaves its leading slow steps out (only one-time costs inside its steady "
          "steps are found). A wait for GPU work the trace does not hold at the recording's "
          "start (an early op launched onto the idle GPU that waited 1 ms or more and 20x the "
          "device's usual wait; the host's waits before any recorded GPU op) is left out of the "
          "window too but is the recording's, not the program's: the window line names it, "
          "this finding does not."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
