// memory-growth: allocated GPU memory that grows step after step in the steady state (a leak or
// growing shapes), from the allocator's [memory] events. A summary: it costs memory, not time,
// until the allocator runs out (its misses are the allocator rule's).

#include <string>

#include "analysis/findings/rules/rule_checks.h"
#include "analysis/timeline/memory_timeline.h"

namespace gpuscope::analysis::internal {

// The rule's own helpers, apart from every other rule's in a unity build.
namespace memory_growth_rule {
namespace {

void Detect(const Context& c, Claims&, std::vector<Candidate>& out) {
  const Trace& t = c.t();
  if (t.memory.size() == 0 || c.steady().iterations.empty()) return;
  MemoryTimeline m = BuildMemoryTimeline(t, c.steady(), 3, &c.at());
  for (const DeviceMemory& d : m.devices) {
    if (d.growth_per_step_bytes <= 0 || d.steps.size() < 3) continue;
    Candidate cand{Make(c, "memory-growth", 0), {}};
    Finding& f = cand.finding;
    f.severity = Severity::kMedium;
    const MemoryStep& a = d.steps.front();
    const MemoryStep& b = d.steps.back();
    f.detail = "GPU " + std::to_string(d.device) + ": allocated memory grows " +
               base::FormatBytes(d.growth_per_step_bytes) + " per steady step (" +
               base::FormatBytes(a.allocated_bytes) + " at the end of step " +
               std::to_string(a.iteration) + ", " + base::FormatBytes(b.allocated_bytes) +
               " at the end of step " + std::to_string(b.iteration) + ")";
    if (!d.kept.empty()) {
      const MemoryHolder& h = d.kept.front();
      f.where.op = h.op;
      f.where.python = h.python;
      f.detail += "; kept past the steps: " + base::FormatBytes(h.bytes) + " in " +
                  base::Counted(h.blocks, "block", "blocks") + " from " +
                  (h.op.empty() ? std::string("outside any op") : h.op);
    }
    AddEvidence(c, f, a.end_ns, b.end_ns - a.end_ns,
                "allocated " + base::FormatBytes(a.allocated_bytes) + " -> " +
                    base::FormatBytes(b.allocated_bytes));
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace memory_growth_rule

const RuleInfo& MemoryGrowthRule() {
  static const RuleInfo rule{
      .id = "memory-growth",
      .title = "GPU memory that grows step after step",
      .definition =
          "The allocator's events - PyTorch's [memory] events (profile_memory=True), or the "
          "runtime's allocations of rocprofv3 --memory-allocation-trace and nsys "
          "--cuda-memory-usage=true (without totals: their running sum) - show the device's "
          "allocated bytes at the end of each steady step never falling, over at least 3 steps, "
          "and ending higher: a leak (tensors kept across steps) or shapes that keep growing. "
          "Names the op and Python line that allocated the blocks the steps kept (allocated in a "
          "steady step and alive after the last one).",
      .impact =
          "not priced: it costs memory, not time, until the allocator runs out (the allocator's "
          "misses, cudaMalloc in the loop, are the allocator rule's). Listed after the measured "
          "costs.",
      .advice =
          "Find what keeps tensors alive across steps: outputs or losses appended to a list "
          "without .detach() / .item(), caches keyed by ever-new shapes, tensors stored on the "
          "module; torch.cuda.memory._record_memory_history() and a memory snapshot name each "
          "block's stack. In serving, preallocate the KV cache instead of growing it.",
      .detect = &memory_growth_rule::Detect,
      .listing = RuleInfo::Listing::kSummary,
      .runtime_advice =
          "Free what each iteration allocates: every cudaMalloc / hipMalloc of the loop needs its "
          "free in the same iteration (or a buffer reused across iterations).",
      .limits =
          "traces without GPU memory events (record with profile_memory=True, rocprofv3 "
          "--memory-allocation-trace or nsys --cuda-memory-usage=true); a window without steps; "
          "growth that falls back within the steps (a cache warming up and then steady); blocks "
          "without addresses cannot be named (the 2021 profiler's events)."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
