// collective-skew: ranks waiting in collectives for the last to arrive; the fix balances the
// work before each collective across the ranks.

#include <algorithm>
#include <string>

#include "analysis/job/job_rule.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace collective_skew_rule {
namespace {

void Detect(const JobContext& c, std::vector<JobCandidate>& out) {
  const JobReport& rep = c.rep;
  if (!(rep.wait_ns > 0)) return;
  JobCandidate p{{}, c.PhaseCut(false)};
  Finding& f = p.f;
  f.rule = std::string(kRuleCollectiveSkew);
  f.title = "Ranks wait " + base::FormatDuration(rep.wait_ns) +
            " in collectives for the last rank to arrive (" +
            Percent(100.0 * static_cast<double>(rep.wait_ns) /
                    static_cast<double>(std::max<int64_t>(1, rep.wait_ns + rep.transfer_ns))) +
            " of collective time)";
  f.fix = rep.straggler
              ? "the work before each collective balanced across the ranks other than the "
                "straggler (each set to their mean)"
              : "the work before each collective balanced across the ranks (each set to the "
                "mean)";
  f.detail = base::Counted(rep.instances, "instance", "instances") + "; skew (waiting) " +
             base::FormatDuration(rep.wait_ns) + ", transfer " +
             base::FormatDuration(rep.transfer_ns) + ", summed over ranks";
  if (!rep.collectives.empty()) f.where.op = rep.collectives.front().name;
  f.advice = std::string(CollectiveSkewRule().info.advice);
  for (const Instance* skewed : LatestArrivals(
           c.instances, c.options.evidence, [](const Instance&) { return true; },
           [](const Instance& i) { return i.mean_arrival; })) {
    const Instance& inst = *skewed;
    const auto& call = c.ranks[inst.aligned.front().first].calls[inst.aligned.front().second];
    f.evidence.push_back(
        {inst.mean_arrival, inst.last_arrival - inst.mean_arrival, -1,
         call.name + ": last rank " + std::to_string(rep.ranks[inst.last_rank].rank) + " arrived " +
             base::FormatDuration(inst.last_arrival - inst.mean_arrival) + " after the mean"});
  }
  out.push_back(std::move(p));
}

}  // namespace
}  // namespace collective_skew_rule

const JobRuleEntry& CollectiveSkewRule() {
  static const JobRuleEntry rule{
      .info =
          {.id = kRuleCollectiveSkew,
           .title = "Ranks wait in collectives for the last rank to arrive",
           .definition =
               "ranks spend time inside collective kernels before the last member of the group "
               "has arrived (the skew part of each instance, measured on clocks aligned by the "
               "collectives' common end)",
           .impact =
               "the work before each collective (compute, and GPU idle where the rank waited for "
               "the previous collective) balanced across the ranks: each rank's set to their mean "
               "(work moves from the slower ranks to the faster), the straggler's left to "
               "rank-straggler; the job's cross-rank replay gives the saving",
           .advice =
               "Balance the work between collectives: even shards, sequence lengths and batch "
               "sizes per rank, balanced MoE routing; pin host threads (NUMA/CPU affinity) so "
               "that no rank's launches lag; avoid per-rank host syncs (.item()) right before a "
               "collective.",
           .limits =
               "a single trace; ranks whose clocks the collectives cannot align; the straggler's "
               "share of the waiting (rank-straggler's)."},
      .job_detect = &collective_skew_rule::Detect};
  return rule;
}

}  // namespace gpuscope::analysis::job_internal
