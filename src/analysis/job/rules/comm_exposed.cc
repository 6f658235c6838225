// comm-exposed: transfers while the GPU does nothing else; the fix lets the compute after them
// run beside them.

#include <algorithm>
#include <string>

#include "analysis/job/job_rule.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace comm_exposed_rule {
namespace {

void Detect(const JobContext& c, std::vector<JobCandidate>& out) {
  const JobReport& rep = c.rep;
  bool any_hideable = false;
  for (const auto& h : c.m.hideable) any_hideable |= std::find(h.begin(), h.end(), 1) != h.end();
  if (!any_hideable) return;
  JobCandidate p{{}, c.EmptyFix()};
  p.fix.detach = c.m.hideable;
  p.cap = c.m.hideable_rank_max_ns;
  p.capped_by = "the most exposed transfer one rank can hide";
  Finding& f = p.f;
  f.rule = std::string(kRuleCommExposed);
  f.title =
      "Communication not overlapped with compute: " + base::FormatDuration(c.m.exposed_ns_total) +
      " of transfer with the GPU doing nothing else (all ranks)";
  f.fix =
      "the compute after each collective, up to the rank's next collective in the same "
      "step, no longer waits for it (the collective runs beside it; collectives stay in "
      "order)";
  f.detail = "overlap " +
             Percent(rep.comm_ns > 0 ? 100.0 * static_cast<double>(rep.overlapped_comm_ns) /
                                           static_cast<double>(rep.comm_ns)
                                     : 0) +
             " of communication kernel time, all ranks";
  if (!rep.collectives.empty()) f.where.op = rep.collectives.front().name;
  f.advice = std::string(CommExposedRule().info.advice);
  out.push_back(std::move(p));
}

}  // namespace
}  // namespace comm_exposed_rule

const JobRuleEntry& CommExposedRule() {
  static const JobRuleEntry rule{
      .info =
          {.id = kRuleCommExposed,
           .title = "Communication not overlapped with compute",
           .definition =
               "the transfer part of collective kernels (after the last rank arrived) runs while "
               "the rank's GPU does no other work",
           .impact =
               "the compute after each exposed collective, up to the rank's next collective in "
               "the same step, no longer waits for its transfer (it runs beside it, collectives "
               "stay in order) but still starts no earlier than the group's last arrival: overlap "
               "hides transfer, never the waiting for a late rank (collective-skew's and "
               "rank-straggler's); a step's last collective, which the step's end waits for, "
               "stays exposed; the job's cross-rank replay gives the saving, capped at the most "
               "exposed transfer one rank can hide. Whether the program can overlap a collective "
               "whose result the next compute needs (a tensor-parallel all-reduce) is not in the "
               "trace: there the saving is an upper bound",
           .advice =
               "Overlap communication with compute: launch collectives asynchronously on their "
               "own stream and wait only where the result is needed (DDP gradient bucketing, FSDP "
               "prefetch, async tensor parallelism / torch.compile micro-pipelining), or send "
               "less (bf16/fp8 communication, fewer larger collectives).",
           .limits =
               "collectives that run beside compute (their own stream, overlapped); a step's last "
               "collective (the step's end waits for it); the waiting for a late rank inside a "
               "collective (collective-skew's and rank-straggler's)."},
      .job_detect = &comm_exposed_rule::Detect};
  return rule;
}

}  // namespace gpuscope::analysis::job_internal
