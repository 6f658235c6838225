#include <algorithm>
#include <climits>
#include <span>
#include <string>

#include "analysis/findings/price_in_order.h"
#include "analysis/job/job_rule.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {

std::string Percent(double v) { return base::FormatFixed(v, 1) + "%"; }

JobModel BuildTimeline(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                       int64_t origin, JobReport& rep) {
  // The timeline to replay. Per call: its phase (from the rank's start, its previous
  // collective's end when its compute waited for it, else its arrival there), and whether the
  // exposed part of its transfer could hide behind compute of the same step (`hideable`).
  JobModel m;
  JobTimeline& tl = m.tl;
  auto& tl_rank = m.tl_rank;
  auto& members_at = m.members_at;
  auto& hideable = m.hideable;
  auto& own = m.own;
  int64_t& exposed_ns_total = m.exposed_ns_total;
  tl_rank.assign(ranks.size(), SIZE_MAX);
  members_at.resize(instances.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!rep.ranks[r].aligned || !ranks[r].gpu_work) continue;
    tl_rank[r] = tl.ranks.size();
    JobTimeline::Rank tr;
    std::vector<uint8_t> hide;
    std::vector<std::pair<int64_t, int64_t>> own_r;
    const int64_t off = rep.ranks[r].offset_ns;
    // Every rank starts where the job starts: a rank whose first work comes late (its host
    // busy first) has that delay in its first phase, where a fix can cut it.
    tr.start_ns = origin;
    int64_t prev_end = origin, prev_arrival = origin, prev_end_raw = INT64_MIN;
    // The GPU's busy time up to prev_end (own clock): none before the origin, which is at or
    // before every rank's first activity.
    int64_t busy_to_prev_end = 0;
    bool have_prev = false;
    const RankData& d = ranks[r];
    int64_t hideable_ns = 0;
    // The compute issued before a call started before the previous call ended: it did not wait
    // for it (the collective ran beside it, e.g. on its own stream).
    auto waited = [&](size_t c) { return ranks[r].work_start_ns[c] >= prev_end_raw; };
    for (size_t c = 0; c < ranks[r].calls.size(); ++c) {
      size_t i = ranks[r].instance_of[c];
      if (i == SIZE_MAX || instances[i].aligned.empty()) continue;
      const Instance& inst = instances[i];
      const CollectiveCall& call = ranks[r].calls[c];
      int64_t s = call.start_ns - off, e = call.end_ns - off;
      bool after_end = !have_prev || waited(c);
      int64_t anchor = !have_prev ? origin : after_end ? prev_end : prev_arrival;
      members_at[i].emplace_back(tl.ranks.size(), tr.calls.size());
      // The rank's own time: its compute, and - when the phase waited for the previous
      // collective - its GPU's idle time in the phase (a busy host). Beside a collective, idle
      // time is waiting for the communication stream, not the rank's own.
      int64_t window = std::max<int64_t>(0, s - anchor);
      int64_t busy_in_window =
          window > 0 ? d.busy_to_start_ns[c] - (have_prev ? busy_to_prev_end : 0) : 0;
      int64_t idle = after_end ? window - busy_in_window : 0;
      own_r.emplace_back(ranks[r].work_ns[c], idle);
      tr.calls.push_back({i, std::max<int64_t>(0, s - anchor), ranks[r].work_ns[c],
                          e - (inst.last_arrival + inst.transfer_ns), after_end});
      RankSummary& rs = rep.ranks[r];
      ++rs.collectives;
      int64_t from = std::max(s, inst.last_arrival);
      rs.wait_ns += std::max<int64_t>(0, inst.last_arrival - s);
      rs.transfer_ns += std::max<int64_t>(0, e - from);
      const std::span<const Interval> beside_call(d.beside.data() + d.beside_begin[c],
                                                  d.beside.data() + d.beside_begin[c + 1]);
      int64_t beside = CoveredWithin(beside_call, from + off, std::max(from, e) + off);
      int64_t exposed_ns = std::max<int64_t>(0, e - from) - beside;
      exposed_ns_total += exposed_ns;
      // Hideable: exposed, and compute follows it before the rank's next collective within the
      // same step (a step's last collective is followed by the step's end, which waits for it).
      hide.push_back(exposed_ns > 0 && d.compute_after_ns[c] > 0);
      if (hide.back()) hideable_ns += exposed_ns;
      if (inst.last_rank == r) {
        ++rs.last_arrivals;
        rs.late_cost_ns += inst.last_arrival - inst.second_arrival;
      }
      if (e > prev_end) prev_end = e, busy_to_prev_end = d.busy_to_end_ns[c];
      prev_arrival = s, have_prev = true;
      prev_end_raw = std::max(prev_end_raw, call.end_ns);
    }
    tr.tail_after_end = !have_prev || waited(ranks[r].calls.size());
    int64_t tail_anchor = !have_prev ? origin : tr.tail_after_end ? prev_end : prev_arrival;
    tr.tail_ns = std::max<int64_t>(0, ranks[r].last_ns - off - tail_anchor);
    tl.ranks.push_back(std::move(tr));
    hideable.push_back(std::move(hide));
    own.push_back(std::move(own_r));
    m.hideable_rank_max_ns = std::max(m.hideable_rank_max_ns, hideable_ns);
  }
  tl.transfer_ns.resize(instances.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    tl.transfer_ns[i] = instances[i].transfer_ns;
    if (!instances[i].aligned.empty()) ++rep.instances;
  }
  for (const auto& s : rep.ranks) rep.wait_ns += s.wait_ns, rep.transfer_ns += s.transfer_ns;
  return m;
}

JobFix JobContext::EmptyFix() const {
  const JobTimeline& tl = m.tl;
  JobFix f;
  f.phase_cut.resize(tl.ranks.size());
  f.detach.resize(tl.ranks.size());
  for (size_t r = 0; r < tl.ranks.size(); ++r) {
    f.phase_cut[r].assign(tl.ranks[r].calls.size(), 0);
    f.detach[r].assign(tl.ranks[r].calls.size(), 0);
  }
  return f;
}

JobFix JobContext::PhaseCut(bool straggler_only) const {
  const JobTimeline& tl = m.tl;
  const auto& tl_rank = m.tl_rank;
  const auto& members_at = m.members_at;
  const auto& own = m.own;
  JobFix f = EmptyFix();
  const size_t kt = k == SIZE_MAX ? SIZE_MAX : tl_rank[k];
  for (size_t i = 0; i < instances.size(); ++i) {
    const auto& at = members_at[i];
    if (at.size() < 2 || (straggler_only && instances[i].last_rank != k)) continue;
    std::vector<int64_t> work, idle;
    __int128 sum = 0;
    for (const auto& [t, pos] : at) {
      if (t == kt) continue;
      work.push_back(own[t][pos].first), idle.push_back(own[t][pos].second);
    }
    // Balancing leaves the straggler to its own finding: the mean is the other ranks'.
    size_t counted = 0;
    for (const auto& [t, pos] : at) {
      if (t == kt && rep.straggler) continue;
      sum += own[t][pos].first + own[t][pos].second, ++counted;
    }
    const int64_t mean = counted ? static_cast<int64_t>(sum / static_cast<__int128>(counted)) : 0;
    const int64_t med_work = Median(work), med_idle = Median(idle);
    for (const auto& [t, pos] : at) {
      if (straggler_only ? t != kt : t == kt && rep.straggler) continue;
      const auto& [w, idl] = own[t][pos];
      int64_t excess =
          straggler_only ? std::max<int64_t>(0, w - med_work) + std::max<int64_t>(0, idl - med_idle)
                         : w + idl - mean;  // balanced: to the mean
      const JobTimeline::Call& call = tl.ranks[t].calls[pos];
      f.phase_cut[t][pos] = std::min(excess, call.after_end ? call.phase_ns : call.work_ns);
    }
  }
  return f;
}

void PriceFindings(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                   const JobModel& m, size_t k, const JobOptions& options, JobReport& rep) {
  const JobTimeline& tl = m.tl;
  // The findings, priced by the replay: each fix alone, then in order of saving on top of the
  // ones before (impacts add up to the combined saving and never claim the same time twice).
  const int64_t base = ReplayJob(tl);
  rep.observed_ns = rep.span_ns;
  if (base > 0 && rep.span_ns > 0) {
    double err = 100.0 *
                 static_cast<double>(base > rep.span_ns ? base - rep.span_ns : rep.span_ns - base) /
                 static_cast<double>(rep.span_ns);
    if (err > 5) {
      rep.notes.push_back("the replay differs from the observed span by " +
                          base::FormatFixed(err, 1) +
                          "%: the ranks do not run in lock-step through these collectives "
                          "(traces of different steps, or work the collectives do not order); "
                          "the findings' savings are approximate");
    }
  }
  rep.replayed_ns = base;
  rep.combined_ns = base;
  if (base <= 0) {
    if (!instances.empty())
      rep.notes.push_back(
          "the ranks' collectives cannot be replayed in one order; findings are "
          "not priced");
    return;
  }
  const JobContext ctx{ranks, instances, m, k, options, rep};
  std::vector<JobCandidate> cands;
  for (const JobRuleEntry* rule : JobRuleEntries()) rule->job_detect(ctx, cands);
  const double span = static_cast<double>(std::max<int64_t>(1, rep.span_ns));
  // Price: alone, then in order on top of each other (PriceInOrder, as for a single trace).
  std::vector<PriceCandidate<JobFix>> in(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) in[i] = {&cands[i].fix, 0, cands[i].cap};
  const PriceResult r = PriceInOrder(
      base, in, ctx.EmptyFix(),
      OneByOne<JobFix>([&](const JobFix* fix) { return ReplayJob(tl, fix); }),
      [](JobFix& all, const JobFix& fx) {
        for (size_t t = 0; t < all.phase_cut.size(); ++t) {
          for (size_t c = 0; c < all.phase_cut[t].size(); ++c)
            all.phase_cut[t][c] = std::max(all.phase_cut[t][c], fx.phase_cut[t][c]);
        }
        for (size_t t = 0; t < all.detach.size(); ++t) {
          for (size_t c = 0; c < all.detach[t].size(); ++c)
            all.detach[t][c] = all.detach[t][c] | fx.detach[t][c];
        }
      },
      [&](int64_t alone) {
        return 100.0 * static_cast<double>(alone) / span >= options.min_impact_percent;
      });
  std::vector<size_t> by_impact(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) by_impact[i] = i;
  std::stable_sort(by_impact.begin(), by_impact.end(),
                   [&](size_t a, size_t b) { return r.standalone_ns[a] > r.standalone_ns[b]; });
  for (size_t i : by_impact) {
    Finding f = std::move(cands[i].f);
    f.baseline_ns = base;
    f.standalone_ns = r.standalone_ns[i];
    f.fixed_ns = r.alone_window_ns[i];
    if (r.capped[i]) {
      f.detail += "; the replay's saving capped at " + std::string(cands[i].capped_by) + " (" +
                  base::FormatDuration(cands[i].cap) + ")";
    }
    f.impact_ns = r.impact_ns[i];
    f.impact_percent = 100.0 * static_cast<double>(f.impact_ns) / span;
    // Graded and kept by what its fix alone saves, as a single trace's findings are.
    f.standalone_percent = 100.0 * static_cast<double>(f.standalone_ns) / span;
    f.severity = SeverityFor(f.standalone_percent);
    f.changes = base::FormatDuration(f.standalone_ns) + " alone";
    for (size_t o = 0; o < r.order.size(); ++o)
      if (r.order[o] == i) f.price_order = static_cast<int>(o);
    if (f.standalone_percent >= options.min_impact_percent) rep.findings.push_back(std::move(f));
  }
  NamePricedBefore(rep.findings);
  rep.combined_ns = r.combined_ns;
}

}  // namespace gpuscope::analysis::job_internal
