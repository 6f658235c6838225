#include "analysis/job/job.h"

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "analysis/job/job_internal.h"
#include "base/text.h"

namespace gpuscope::analysis {

using namespace job_internal;  // NOLINT: the parts of AnalyzeJob

namespace {

// Trace health of a job: the ranks' profiling windows should open together. When they open far
// apart, the early ranks' first collectives wait for ranks whose work was not recorded yet: that
// waiting is the profiler's, and the early part of the job is not comparable across ranks.
void WindowNote(JobReport& rep) {
  const RankSummary* first = nullptr;
  const RankSummary* last = nullptr;
  for (const auto& s : rep.ranks) {
    if (!s.aligned || s.end_ns <= s.start_ns) continue;
    if (!first || s.start_ns < first->start_ns) first = &s;
    if (!last || s.start_ns > last->start_ns) last = &s;
  }
  if (!first || first == last) return;
  int64_t spread = last->start_ns - first->start_ns;
  if (spread < std::max<int64_t>(1'000'000, rep.span_ns / 20)) return;
  rep.notes.push_back(
      "the ranks' profiling windows open " + base::FormatDuration(spread) + " apart (rank " +
      std::to_string(first->rank) + " first, rank " + std::to_string(last->rank) +
      " last, aligned clocks): collectives before the last window opened wait for work that was "
      "not recorded; start the profiler on the same step on every rank (torch.profiler "
      "schedule(wait, warmup, active) with prof.step() each step)");
}

// Per collective kind and size (name, group, dtype, bytes): instances, time, waiting, transfer
// and bandwidths, the costliest first.
void SummarizeCollectives(const std::vector<RankData>& ranks,
                          const std::vector<Instance>& instances, JobReport& rep) {
  std::map<std::tuple<std::string, std::string, std::string, int64_t>, CollectiveSummary> kinds;
  for (const auto& inst : instances) {
    if (inst.aligned.empty()) continue;
    const auto& [r0, c0] = inst.aligned.front();
    const CollectiveCall& first = ranks[r0].calls[c0];
    CollectiveSummary& cs = kinds[{first.name, first.group, first.dtype, first.bytes}];
    cs.name = first.name, cs.group = first.group, cs.dtype = first.dtype, cs.bytes = first.bytes;
    cs.ranks = first.group_size > 0 ? first.group_size : static_cast<int64_t>(inst.members.size());
    ++cs.count;
    std::vector<int64_t> dur;
    int64_t wait = 0;
    for (const auto& [r, c] : inst.aligned) {
      dur.push_back(ranks[r].calls[c].end_ns - ranks[r].calls[c].start_ns);
      wait += inst.last_arrival - (ranks[r].calls[c].start_ns - rep.ranks[r].offset_ns);
    }
    cs.time_ns += Median(dur);
    cs.wait_ns += wait / static_cast<int64_t>(inst.aligned.size());
    cs.transfer_ns += inst.transfer_ns;
  }
  for (auto& [key, cs] : kinds) {
    if (cs.bytes >= 0 && cs.transfer_ns > 0) {
      cs.algbw_gbps = static_cast<double>(cs.bytes) * static_cast<double>(cs.count) /
                      static_cast<double>(cs.transfer_ns);
      cs.busbw_gbps = cs.algbw_gbps * BusBandwidthFactor(cs.name, cs.ranks);
    }
    rep.collectives.push_back(cs);
  }
  std::sort(rep.collectives.begin(), rep.collectives.end(),
            [](const CollectiveSummary& a, const CollectiveSummary& b) {
              return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
            });
}

}  // namespace

std::string_view CauseKindName(CauseKind k) {
  return k == CauseKind::kKernel ? "kernel" : "host-op";
}

JobReport AnalyzeJob(const std::vector<RankInput>& inputs, const JobOptions& options) {
  std::vector<RankTimeline> ranks;
  for (const auto& in : inputs) ranks.push_back(SummarizeRank(*in.trace, in.rank, in.path));
  return AnalyzeJob(std::move(ranks), options);
}

JobReport AnalyzeJob(std::vector<RankTimeline> inputs, const JobOptions& options) {
  JobReport rep;
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const RankTimeline& a, const RankTimeline& b) { return a.rank < b.rank; });
  std::vector<RankData> ranks(inputs.size());
  for (size_t r = 0; r < inputs.size(); ++r) {
    static_cast<RankTimeline&>(ranks[r]) = std::move(inputs[r]);
    RankSummary s;
    s.rank = ranks[r].rank;
    s.path = ranks[r].path;
    s.steps = ranks[r].steps;
    s.step_median_ns = ranks[r].step_median_ns;
    if (ranks[r].world_size > 0) rep.world_size = ranks[r].world_size;
    rep.ranks.push_back(std::move(s));
  }
  inputs.clear();
  if (ranks.empty()) return rep;
  CheckIdentity(ranks, rep);
  rep.reference_rank = rep.ranks[0].rank;
  if (rep.world_size > static_cast<int64_t>(ranks.size())) {
    rep.notes.push_back("the folder holds " + std::to_string(ranks.size()) + " of the job's " +
                        std::to_string(rep.world_size) +
                        " ranks: arrivals are compared among these ranks only (a rank without a "
                        "trace may be the one they wait for)");
  }
  std::vector<Instance> instances = MatchInstances(ranks, rep);
  AlignClocks(ranks, instances, rep);
  MeasureInstances(ranks, instances, rep);

  // Per rank: GPU time by kind, collectives' wait and transfer, late arrivals.
  int64_t job_start = INT64_MAX, job_end = INT64_MIN;
  for (size_t r = 0; r < ranks.size(); ++r) {
    RankSummary& s = rep.ranks[r];
    const RankData& d = ranks[r];
    s.start_ns = d.first_ns - s.offset_ns, s.end_ns = d.last_ns - s.offset_ns;
    if (s.aligned && d.gpu_work) {
      job_start = std::min(job_start, s.start_ns), job_end = std::max(job_end, s.end_ns);
    }
    s.busy_ns = d.busy_ns, s.compute_ns = d.compute_ns, s.comm_ns = d.comm_ns;
    int64_t overlapped = d.overlapped_comm_ns;
    s.comm_exposed_ns = s.comm_ns - overlapped;
    s.idle_ns = (d.last_ns - d.first_ns) - s.busy_ns;
    rep.comm_ns += s.comm_ns, rep.overlapped_comm_ns += overlapped;
  }
  rep.start_ns = job_start == INT64_MAX ? 0 : job_start;
  rep.span_ns = job_start == INT64_MAX ? 0 : job_end - job_start;
  WindowNote(rep);

  int64_t origin = INT64_MAX;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (rep.ranks[r].aligned && ranks[r].gpu_work)
      origin = std::min(origin, ranks[r].active_ns - rep.ranks[r].offset_ns);
  }
  if (origin == INT64_MAX) origin = rep.start_ns;

  const JobModel timeline = BuildTimeline(ranks, instances, origin, rep);

  SummarizeCollectives(ranks, instances, rep);

  // The straggler: the rank whose late arrivals cost most: at least straggler_share of what all
  // late arrivals cost, and twice the next costliest rank.
  size_t k = SIZE_MAX;
  int64_t runner_up = 0, all_late = 0;
  for (const auto& s : rep.ranks) all_late += s.late_cost_ns;
  for (size_t r = 0; r < ranks.size(); ++r) {
    int64_t cost = rep.ranks[r].late_cost_ns;
    if (k == SIZE_MAX || cost > rep.ranks[k].late_cost_ns) {
      if (k != SIZE_MAX) runner_up = std::max(runner_up, rep.ranks[k].late_cost_ns);
      k = r;
    } else {
      runner_up = std::max(runner_up, cost);
    }
  }
  if (k != SIZE_MAX && rep.ranks[k].truncated) k = SIZE_MAX;  // its partial data says nothing
  if (k != SIZE_MAX && rep.ranks[k].collectives > 0 && rep.ranks[k].late_cost_ns > 0 &&
      static_cast<double>(rep.ranks[k].late_cost_ns) >=
          options.straggler_share * static_cast<double>(all_late) &&
      rep.ranks[k].late_cost_ns >= 2 * runner_up &&
      100.0 * static_cast<double>(rep.ranks[k].late_cost_ns) >=
          options.min_impact_percent * static_cast<double>(std::max<int64_t>(1, rep.span_ns))) {
    Straggler st;
    st.rank = rep.ranks[k].rank;
    st.late = rep.ranks[k].last_arrivals;
    st.instances = rep.ranks[k].collectives;
    st.cost_ns = rep.ranks[k].late_cost_ns;
    FindCauses(ranks, instances, rep, origin, st, k);
    rep.straggler = std::move(st);
  }

  PriceFindings(ranks, instances, timeline, k, options, rep);
  return rep;
}

}  // namespace gpuscope::analysis
