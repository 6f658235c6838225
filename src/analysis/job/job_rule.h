#pragma once
// A job rule (internal to analysis/job): a registry entry like a single-trace rule's (RuleInfo:
// id, title, definition, pricing, advice, limits) with the check that finds it in a job and
// supplies the fix the job's cross-rank replay prices it by. One file each in job/rules/; the
// list, in the order they are listed and priced, is JobRuleEntries() (job_rules.cc).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/findings/finding.h"
#include "analysis/job/job_internal.h"
#include "analysis/job/job_rules.h"

namespace gpuscope::analysis::job_internal {

// What the job rules read: the ranks, the matched instances, the replay's timeline and the
// straggler (when one was found).
struct JobContext {
  const std::vector<RankData>& ranks;
  const std::vector<Instance>& instances;
  const JobModel& m;
  size_t k = SIZE_MAX;  // the straggler's rank index (SIZE_MAX: none)
  const JobOptions& options;
  const JobReport& rep;

  // A fix that changes nothing, sized to the timeline.
  JobFix EmptyFix() const;
  // Phases cut by the rank's own excess: the straggler's (straggler_only), before each
  // collective it was last to, down to the other ranks' median compute and idle; with balanced
  // work (skew), every rank's to the group's mean (the work moves: a rank below the mean gets
  // more), the straggler's left to its own finding. A phase is never cut below zero.
  JobFix PhaseCut(bool straggler_only) const;
};

// A finding and the fix that prices it. `cap`: what the fix can save at most, by what the problem
// costs (-1: none) - the job's replay is a model, and a saving above what the problem measurably
// costs is its error.
struct JobCandidate {
  Finding f;
  JobFix fix;
  int64_t cap = -1;
  const char* capped_by = "";
};

using JobDetectFn = void (*)(const JobContext&, std::vector<JobCandidate>&);

struct JobRuleEntry {
  RuleInfo info = {};  // its `detect` is null: `job_detect` finds it
  JobDetectFn job_detect = nullptr;
};

const JobRuleEntry& RankStragglerRule();   // rank-straggler: one rank late at most collectives
const JobRuleEntry& CollectiveSkewRule();  // collective-skew: ranks waiting for the last one
const JobRuleEntry& CommExposedRule();     // comm-exposed: transfers nothing overlaps
const std::vector<const JobRuleEntry*>& JobRuleEntries();

// For the rules' texts and evidence.
std::string Percent(double v);
// The aligned instances `keep` accepts, latest first by how long after `from(instance)` their
// last rank arrived, at most n.
template <typename Keep, typename From>
std::vector<const Instance*> LatestArrivals(const std::vector<Instance>& instances, size_t n,
                                            Keep keep, From from) {
  std::vector<const Instance*> out;
  for (const auto& inst : instances) {
    if (!inst.aligned.empty() && keep(inst)) out.push_back(&inst);
  }
  std::sort(out.begin(), out.end(), [&](const Instance* a, const Instance* b) {
    return a->last_arrival - from(*a) > b->last_arrival - from(*b);
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace gpuscope::analysis::job_internal
