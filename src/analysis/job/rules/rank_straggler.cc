// rank-straggler: one rank late at most collectives; the fix cuts its extra work before them,
// capped at the waiting it caused.

#include <algorithm>
#include <string>

#include "analysis/job/job_rule.h"
#include "base/short_name.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace rank_straggler_rule {
namespace {

void Detect(const JobContext& c, std::vector<JobCandidate>& out) {
  const JobReport& rep = c.rep;
  if (!(rep.straggler)) return;
  const Straggler& st = *rep.straggler;
  JobCandidate p{{}, c.PhaseCut(true)};
  Finding& f = p.f;
  f.rule = std::string(kRuleStraggler);
  std::string cause;
  if (!st.causes.empty()) {
    const StragglerCause& top = st.causes.front();
    cause = top.kind == CauseKind::kKernel
                ? "its GPU spends longer in " + base::ShortenName(top.what, 60)
                : "its GPU idles while its host runs " + base::ShortenName(top.what, 60);
  }
  f.title = "Rank " + std::to_string(st.rank) + " arrives last at " + base::FormatCount(st.late) +
            " of its " + base::Counted(st.instances, "collective", "collectives") +
            (cause.empty() ? "" : ": " + cause);
  f.fix = "rank " + std::to_string(st.rank) +
          " arrives at each collective it was last to with the second-latest rank";
  f.detail = "late arrivals cost the others " + base::FormatDuration(st.cost_ns) +
             "; its GPU idled " + base::FormatDuration(st.idle_excess_ns) +
             " more than the median rank in those phases";
  for (const auto& sc : st.causes) {
    f.detail += "; " + std::string(CauseKindName(sc.kind)) + " " + base::ShortenName(sc.what, 60) +
                " +" + base::FormatDuration(sc.excess_ns) + " (" +
                base::FormatDuration(sc.rank_ns) + " vs " + base::FormatDuration(sc.others_ns) +
                ")";
  }
  if (!st.causes.empty()) {
    if (st.causes.front().kind == CauseKind::kKernel)
      f.where.kernel = st.causes.front().what;
    else
      f.where.op = st.causes.front().what;
  }
  f.advice = std::string(RankStragglerRule().info.advice);
  // Arriving with the second-latest rank saves the others at most the waiting it caused.
  p.cap = st.cost_ns, p.capped_by = "the waiting its late arrivals caused";
  // Evidence: its latest arrivals.
  for (const Instance* late : LatestArrivals(
           c.instances, c.options.evidence, [&](const Instance& i) { return i.last_rank == c.k; },
           [](const Instance& i) { return i.second_arrival; })) {
    const Instance& inst = *late;
    const auto& call = c.ranks[inst.aligned.front().first].calls[inst.aligned.front().second];
    f.evidence.push_back({inst.second_arrival, inst.last_arrival - inst.second_arrival, -1,
                          call.name + (call.group.empty() ? "" : " (group " + call.group + ")") +
                              ": rank " + std::to_string(st.rank) + " arrived " +
                              base::FormatDuration(inst.last_arrival - inst.second_arrival) +
                              " after the second-latest rank"});
  }
  out.push_back(std::move(p));
}

}  // namespace
}  // namespace rank_straggler_rule

const JobRuleEntry& RankStragglerRule() {
  static const JobRuleEntry rule{
      .info =
          {.id = kRuleStraggler,
           .title = "One rank arrives late at the collectives and holds the others back",
           .definition =
               "per collective instance, the last rank's arrival minus the second-latest is "
               "charged to the last rank; a rank is the straggler when its charges are at least "
               "half of all ranks' charges, twice the next rank's, and at least the minimum "
               "impact; its cause is what it did in the phases before those collectives beyond "
               "the other ranks' median (a kernel's extra time, or GPU idle with the host op that "
               "ran instead)",
           .impact =
               "before each collective it was last to, the straggler's compute (the kernels "
               "issued before it, in program order) and its GPU idle time are cut to the other "
               "ranks' median; the job's cross-rank replay gives the saving, capped at the "
               "waiting its late arrivals caused (arriving with the second-latest rank cannot "
               "save more)",
           .advice =
               "Find why this rank is slower: the same kernel taking longer points at the device "
               "(clocks, thermal throttling, a different GPU SKU, ECC page retirement) or at more "
               "work (an uneven shard, MoE expert load); an idle GPU with a busy host points at "
               "the host (CPU affinity and NUMA binding, a noisy neighbour, Python work, data "
               "loading). Profile it alone with gpuscope analyze on its trace.",
           .limits =
               "a single trace; ranks whose clocks the collectives cannot align; a truncated "
               "rank; a job where no rank holds half the late charges and twice the next rank's "
               "(random skew is collective-skew's)."},
      .job_detect = &rank_straggler_rule::Detect};
  return rule;
}

}  // namespace gpuscope::analysis::job_internal
