#include "analysis/job/job_rules.h"

namespace gpuscope::analysis {

const std::vector<RuleInfo>& JobRules() {
  static const std::vector<RuleInfo> rules = {
      {kRuleStraggler,
       "One rank arrives late at the collectives and holds the others back",
       "per collective instance, the last rank's arrival minus the second-latest is charged to the "
       "last rank; a rank is the straggler when its charges are at least half of all ranks' "
       "charges, twice the next rank's, and at least the minimum impact; its cause is what it did "
       "in the phases before those collectives beyond the other ranks' median (a kernel's extra "
       "time, or GPU idle with the host op that ran instead)",
       "before each collective it was last to, the straggler's compute (the kernels issued "
       "before it, in program order) and its GPU idle time are cut to the other ranks' median; "
       "the job's cross-rank replay gives the saving, capped at the waiting its late arrivals "
       "caused (arriving with the second-latest rank cannot save more)",
       "Find why this rank is slower: the same kernel taking longer points at the device (clocks, "
       "thermal throttling, a different GPU SKU, ECC page retirement) or at more work (an uneven "
       "shard, MoE expert load); an idle GPU with a busy host points at the host (CPU affinity "
       "and NUMA binding, a noisy neighbour, Python work, data loading). Profile it alone with "
       "gpuscope analyze on its trace.",
       {},
       nullptr,
       {},
       "a single trace; ranks whose clocks the collectives cannot align; a truncated "
       "rank; a job where no rank holds half the late charges and twice the next "
       "rank's (random skew is collective-skew's)."},
      {kRuleCollectiveSkew,
       "Ranks wait in collectives for the last rank to arrive",
       "ranks spend time inside collective kernels before the last member of the group has "
       "arrived (the skew part of each instance, measured on clocks aligned by the collectives' "
       "common end)",
       "the work before each collective (compute, and GPU idle where the rank waited for the "
       "previous collective) balanced across the ranks: each rank's set to their mean (work "
       "moves from the slower ranks to the faster), the straggler's left to rank-straggler; the "
       "job's cross-rank replay gives the saving",
       "Balance the work between collectives: even shards, sequence lengths and batch sizes per "
       "rank, balanced MoE routing; pin host threads (NUMA/CPU affinity) so that no rank's "
       "launches lag; avoid per-rank host syncs (.item()) right before a collective.",
       {},
       nullptr,
       {},
       "a single trace; ranks whose clocks the collectives cannot align; the "
       "straggler's share of the waiting (rank-straggler's)."},
      {kRuleCommExposed,
       "Communication not overlapped with compute",
       "the transfer part of collective kernels (after the last rank arrived) runs while the "
       "rank's GPU does no other work",
       "the compute after each exposed collective, up to the rank's next collective in the same "
       "step, no longer waits for its transfer (it runs beside it, collectives stay in order) "
       "but still starts no earlier than the group's last arrival: overlap hides transfer, "
       "never the waiting for a late rank (collective-skew's and rank-straggler's); a step's "
       "last collective, which the step's end waits for, stays exposed; the job's cross-rank "
       "replay gives the saving, capped at the most exposed transfer one rank can hide. Whether "
       "the program can overlap a collective whose result the next compute needs (a "
       "tensor-parallel all-reduce) is not in the trace: there the saving is an upper bound",
       "Overlap communication with compute: launch collectives asynchronously on their own "
       "stream and wait only where the result is needed (DDP gradient bucketing, FSDP prefetch, "
       "async tensor parallelism / torch.compile micro-pipelining), or send less (bf16/fp8 "
       "communication, fewer larger collectives).",
       {},
       nullptr,
       {},
       "collectives that run beside compute (their own stream, overlapped); a step's "
       "last collective (the step's end waits for it); the waiting for a late rank "
       "inside a collective (collective-skew's and rank-straggler's)."},
  };
  return rules;
}

const RuleInfo& JobRule(std::string_view id) {
  for (const auto& r : JobRules()) {
    if (r.id == id) return r;
  }
  return JobRules().front();
}

}  // namespace gpuscope::analysis
