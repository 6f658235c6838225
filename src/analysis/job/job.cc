#include "analysis/job/job.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/job/collectives.h"
#include "analysis/job/job_replay.h"
#include "analysis/rules.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  int64_t hi = *mid;
  int64_t lo = *std::max_element(v.begin(), mid);
  return lo + (hi - lo) / 2;
}

// One rank's collectives and GPU busy intervals.
struct RankData {
  const RankInput* in = nullptr;
  std::vector<CollectiveCall> calls;
  std::vector<Interval> compute, comm, busy;  // merged
  int64_t first_ns = 0, last_ns = 0;          // GPU span, own clock
  std::vector<size_t> instance_of;            // per call: instance index or SIZE_MAX
};

// One collective as every rank that took part ran it.
struct Instance {
  std::vector<std::pair<size_t, size_t>> members;  // (rank index, call index)
  // Filled once clocks are aligned (reference clock), over the aligned members.
  std::vector<std::pair<size_t, size_t>> aligned;
  int64_t last_arrival = 0, second_arrival = 0, mean_arrival = 0, transfer_ns = 0;
  size_t last_rank = SIZE_MAX;  // rank index
};

void GpuIntervals(const model::Trace& t, RankData& d) {
  d.first_ns = INT64_MAX, d.last_ns = INT64_MIN;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    Interval iv{t.kernels.start_ns[k], t.kernels.end_ns(k)};
    (IsCommKernelName(t.str(t.kernels.name[k])) ? d.comm : d.compute).push_back(iv);
    d.busy.push_back(iv);
  }
  for (size_t k = 0; k < t.memops.size(); ++k) {
    Interval iv{t.memops.start_ns[k], t.memops.end_ns(k)};
    d.compute.push_back(iv);
    d.busy.push_back(iv);
  }
  for (const auto& iv : d.busy) {
    d.first_ns = std::min(d.first_ns, iv.first), d.last_ns = std::max(d.last_ns, iv.second);
  }
  if (d.busy.empty()) d.first_ns = d.last_ns = 0;
  MergeIntervals(d.compute), MergeIntervals(d.comm), MergeIntervals(d.busy);
}

int64_t Total(const std::vector<Interval>& merged) {
  int64_t s = 0;
  for (const auto& iv : merged) s += iv.second - iv.first;
  return s;
}

// Matches the ranks' calls into instances: by (group, sequence number) when every call has one,
// else by (group, position among the group's calls on that rank).
std::vector<Instance> MatchInstances(std::vector<RankData>& ranks, JobReport& rep) {
  bool all_seq = true, any = false;
  for (const auto& d : ranks) {
    for (const auto& c : d.calls) all_seq &= c.seq >= 0, any = true;
  }
  rep.matched_by =
      any && all_seq ? "sequence numbers" : "order within each process group and collective";
  std::map<std::pair<std::string, int64_t>, size_t> index;
  std::vector<Instance> all;
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::map<std::string, int64_t> ordinal;  // per group and collective
    auto& d = ranks[r];
    d.instance_of.assign(d.calls.size(), SIZE_MAX);
    for (size_t c = 0; c < d.calls.size(); ++c) {
      const CollectiveCall& call = d.calls[c];
      // Point-to-point transfers pair two ranks, not a group that ends together: not matched.
      if (call.name == "sendrecv") {
        ++rep.point_to_point;
        continue;
      }
      int64_t key = all_seq ? call.seq : ordinal[call.group + '\n' + call.name]++;
      auto [it, added] = index.emplace(
          std::make_pair(all_seq ? call.group : call.group + '\n' + call.name, key), all.size());
      if (added) all.emplace_back();
      Instance& inst = all[it->second];
      // A rank seen twice under one key (a repeated sequence number) keeps its first call.
      bool again = false;
      for (const auto& [mr, mc] : inst.members) again |= mr == r;
      if (!again) inst.members.emplace_back(r, c);
    }
  }
  std::vector<Instance> out;
  std::string mismatch;
  for (auto& inst : all) {
    if (inst.members.size() < 2) {
      rep.unmatched_calls += inst.members.size();
      continue;
    }
    const auto& [r0, c0] = inst.members.front();
    for (const auto& [r, c] : inst.members) {
      if (mismatch.empty() && ranks[r].calls[c].name != ranks[r0].calls[c0].name) {
        mismatch = "matched collectives differ in kind (" + ranks[r0].calls[c0].name + " on rank " +
                   std::to_string(ranks[r0].in->rank) + ", " + ranks[r].calls[c].name +
                   " on rank " + std::to_string(ranks[r].in->rank) +
                   "): the traces may not cover the same steps";
      }
    }
    size_t idx = out.size();
    for (const auto& [r, c] : inst.members) ranks[r].instance_of[c] = idx;
    out.push_back(std::move(inst));
  }
  if (!mismatch.empty()) rep.notes.push_back(mismatch);
  if (rep.point_to_point > 0) {
    rep.notes.push_back(base::FormatCount(rep.point_to_point) +
                        " point-to-point transfers (send/recv) are not matched across ranks: "
                        "their time counts as communication only");
  }
  return out;
}

// Offsets: an instance ends together on every rank, so a rank's end minus an aligned rank's end
// is its clock offset; the median over its instances is kept.
void AlignClocks(std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                 JobReport& rep) {
  if (ranks.empty()) return;
  rep.ranks[0].aligned = true;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t s = 0; s < ranks.size(); ++s) {
      if (rep.ranks[s].aligned) continue;
      std::vector<int64_t> d;
      for (const auto& inst : instances) {
        size_t own = SIZE_MAX, ref = SIZE_MAX, ref_call = 0;
        for (const auto& [r, c] : inst.members) {
          if (r == s) own = c;
          if (ref == SIZE_MAX && rep.ranks[r].aligned) ref = r, ref_call = c;
        }
        if (own == SIZE_MAX || ref == SIZE_MAX) continue;
        d.push_back(ranks[s].calls[own].end_ns -
                    (ranks[ref].calls[ref_call].end_ns - rep.ranks[ref].offset_ns));
      }
      if (d.empty()) continue;
      RankSummary& rs = rep.ranks[s];
      rs.offset_ns = Median(d);
      std::vector<int64_t> dev;
      for (int64_t x : d) dev.push_back(x > rs.offset_ns ? x - rs.offset_ns : rs.offset_ns - x);
      rs.offset_mad_ns = Median(dev);
      rs.offset_samples = d.size();
      rs.aligned = progress = true;
    }
  }
  for (const auto& rs : rep.ranks) {
    if (!rs.aligned)
      rep.notes.push_back("rank " + std::to_string(rs.rank) +
                          " shares no collective with the aligned ranks: its clock is not "
                          "aligned and it is left out of the cross-rank measures");
  }
}

// Per instance: arrivals on the reference clock, the last and second-last, the transfer.
void MeasureInstances(const std::vector<RankData>& ranks, std::vector<Instance>& instances,
                      JobReport& rep) {
  for (auto& inst : instances) {
    for (const auto& m : inst.members) {
      if (rep.ranks[m.first].aligned) inst.aligned.push_back(m);
    }
    if (inst.aligned.size() < 2) {
      inst.aligned.clear();
      continue;
    }
    int64_t last = INT64_MIN, second = INT64_MIN;
    __int128 sum = 0;
    for (const auto& [r, c] : inst.aligned) {
      int64_t s = ranks[r].calls[c].start_ns - rep.ranks[r].offset_ns;
      sum += s;
      if (s > last) {
        second = last, last = s, inst.last_rank = r;
      } else if (s > second) {
        second = s;
      }
    }
    inst.last_arrival = last, inst.second_arrival = second;
    inst.mean_arrival = static_cast<int64_t>(sum / static_cast<__int128>(inst.aligned.size()));
    std::vector<int64_t> tr;
    for (const auto& [r, c] : inst.aligned) {
      tr.push_back(std::max<int64_t>(0, ranks[r].calls[c].end_ns - rep.ranks[r].offset_ns - last));
    }
    inst.transfer_ns = Median(tr);
  }
}

// Time per name inside a rank's windows (own clock; sorted, disjoint): kernels (not
// communication) by their overlap; host ops by their self time, counted in the window they
// start in. Idle = window time without GPU work.
struct WindowTimes {
  std::map<std::string, int64_t> kernels, ops;
  int64_t idle_ns = 0;
};

WindowTimes TimesIn(const model::Trace& t, const RankData& d, const std::vector<Interval>& w) {
  WindowTimes out;
  if (w.empty()) return out;
  auto window_of = [&](int64_t x) -> size_t {
    auto it = std::upper_bound(w.begin(), w.end(), std::make_pair(x, INT64_MAX));
    return it == w.begin() ? SIZE_MAX : static_cast<size_t>(it - w.begin() - 1);
  };
  std::unordered_map<model::StringId, int64_t> kernels, ops;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    if (IsCommKernelName(t.str(t.kernels.name[k]))) continue;
    int64_t s = t.kernels.start_ns[k], e = t.kernels.end_ns(k);
    // A kernel may straddle a window's start: look from the window holding its start onward.
    size_t i = window_of(s);
    for (i = i == SIZE_MAX ? 0 : i; i < w.size() && w[i].first < e; ++i) {
      int64_t o = Overlap(s, e, w[i].first, w[i].second);
      if (o > 0) kernels[t.kernels.name[k]] += o;
    }
  }
  std::vector<int64_t> self(t.cpu.size());
  for (size_t i = 0; i < t.cpu.size(); ++i) self[i] = t.cpu.dur_ns[i];
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.parent[i] != model::kNoRow) self[t.cpu.parent[i]] -= t.cpu.dur_ns[i];
  }
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != model::CpuRangeKind::kOp || self[i] <= 0) continue;
    size_t wi = window_of(t.cpu.start_ns[i]);
    if (wi != SIZE_MAX && t.cpu.start_ns[i] < w[wi].second) ops[t.cpu.name[i]] += self[i];
  }
  for (const auto& iv : w)
    out.idle_ns += (iv.second - iv.first) - CoveredWithin(d.busy, iv.first, iv.second);
  for (const auto& [id, ns] : kernels) out.kernels[std::string(t.str(id))] += ns;
  for (const auto& [id, ns] : ops) out.ops[std::string(t.str(id))] += ns;
  return out;
}

// The straggler's causes: per name, its time minus the other ranks' median in the phases before
// the collectives it arrived last to.
void FindCauses(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                const JobReport& rep, Straggler& st, size_t k) {
  std::vector<std::vector<Interval>> windows(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!rep.ranks[r].aligned) continue;
    const RankData& d = ranks[r];
    int64_t prev_end = d.first_ns;
    for (size_t c = 0; c < d.calls.size(); ++c) {
      size_t i = d.instance_of[c];
      if (i != SIZE_MAX && instances[i].last_rank == k && !instances[i].aligned.empty())
        windows[r].emplace_back(prev_end, std::max(prev_end, d.calls[c].start_ns));
      prev_end = std::max(prev_end, d.calls[c].end_ns);
    }
  }
  std::vector<WindowTimes> times(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!windows[r].empty()) times[r] = TimesIn(*ranks[r].in->trace, ranks[r], windows[r]);
  }
  auto excess = [&](auto member, const std::string& kind) {
    std::map<std::string, int64_t> names = times[k].*member;
    for (const auto& [name, ns] : names) {
      std::vector<int64_t> others;
      for (size_t r = 0; r < ranks.size(); ++r) {
        if (r == k || windows[r].empty()) continue;
        auto it = (times[r].*member).find(name);
        others.push_back(it == (times[r].*member).end() ? 0 : it->second);
      }
      int64_t med = Median(others);
      if (ns - med > 0) st.causes.push_back({kind, name, ns - med, ns, med});
    }
  };
  excess(&WindowTimes::kernels, "kernel");
  excess(&WindowTimes::ops, "host-op");
  std::vector<int64_t> idle;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (r != k && !windows[r].empty()) idle.push_back(times[r].idle_ns);
  }
  st.idle_excess_ns = std::max<int64_t>(0, times[k].idle_ns - Median(idle));
  std::sort(st.causes.begin(), st.causes.end(),
            [](const StragglerCause& a, const StragglerCause& b) {
              return a.excess_ns != b.excess_ns ? a.excess_ns > b.excess_ns : a.what < b.what;
            });
  // Host ops explain the straggler only when its GPU idled more than the others' did.
  std::vector<StragglerCause> kept;
  for (const auto& c : st.causes) {
    if (c.kind == "host-op" && st.idle_excess_ns <= 0) continue;
    if (kept.size() < 3) kept.push_back(c);
  }
  st.causes = std::move(kept);
}

// The end of the iteration (ProfilerStep#) holding `t`; INT64_MAX without iterations or outside
// them.
int64_t IterationEnd(const model::Trace& tr, int64_t t) {
  for (const auto& it : tr.iterations) {
    if (it.start_ns <= t && t < it.start_ns + it.dur_ns) return it.start_ns + it.dur_ns;
  }
  return INT64_MAX;
}

std::string Percent(double v) { return base::FormatFixed(v, 1) + "%"; }

}  // namespace

JobReport AnalyzeJob(const std::vector<RankInput>& inputs, const JobOptions& options) {
  JobReport rep;
  std::vector<const RankInput*> sorted;
  for (const auto& in : inputs) sorted.push_back(&in);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RankInput* a, const RankInput* b) { return a->rank < b->rank; });
  std::vector<RankData> ranks(sorted.size());
  for (size_t r = 0; r < sorted.size(); ++r) {
    const model::Trace& t = *sorted[r]->trace;
    ranks[r].in = sorted[r];
    ranks[r].calls = FindCollectives(t);
    GpuIntervals(t, ranks[r]);
    RankSummary s;
    s.rank = sorted[r]->rank;
    s.path = sorted[r]->path;
    s.steps = t.iterations.size();
    if (!t.iterations.empty()) {
      std::vector<int64_t> d;
      for (const auto& it : t.iterations) d.push_back(it.dur_ns);
      s.step_median_ns = Median(d);
    }
    if (t.meta.world_size > 0) rep.world_size = t.meta.world_size;
    rep.ranks.push_back(std::move(s));
  }
  if (ranks.empty()) return rep;
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
    if (s.aligned && !d.busy.empty()) {
      job_start = std::min(job_start, s.start_ns), job_end = std::max(job_end, s.end_ns);
    }
    s.busy_ns = Total(d.busy), s.compute_ns = Total(d.compute), s.comm_ns = Total(d.comm);
    int64_t overlapped = 0;
    for (const auto& iv : d.comm) overlapped += CoveredWithin(d.compute, iv.first, iv.second);
    s.comm_exposed_ns = s.comm_ns - overlapped;
    s.idle_ns = (d.last_ns - d.first_ns) - s.busy_ns;
    rep.comm_ns += s.comm_ns, rep.overlapped_comm_ns += overlapped;
  }
  rep.start_ns = job_start == INT64_MAX ? 0 : job_start;
  rep.span_ns = job_start == INT64_MAX ? 0 : job_end - job_start;

  // The timeline to replay, and what each fix would cut from it.
  JobTimeline tl;
  std::vector<size_t> tl_rank(ranks.size(), SIZE_MAX);
  std::vector<int64_t> exposed(instances.size(), 0);
  std::vector<std::vector<int64_t>> exposed_by_rank(instances.size());
  int64_t exposed_ns_total = 0;  // summed over ranks, hideable or not
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!rep.ranks[r].aligned || ranks[r].busy.empty()) continue;
    tl_rank[r] = tl.ranks.size();
    JobTimeline::Rank tr;
    const int64_t off = rep.ranks[r].offset_ns;
    tr.start_ns = ranks[r].first_ns - off;
    int64_t at = tr.start_ns;
    for (size_t c = 0; c < ranks[r].calls.size(); ++c) {
      size_t i = ranks[r].instance_of[c];
      if (i == SIZE_MAX || instances[i].aligned.empty()) continue;
      const Instance& inst = instances[i];
      const CollectiveCall& call = ranks[r].calls[c];
      int64_t s = call.start_ns - off, e = call.end_ns - off;
      tr.calls.push_back(
          {i, std::max<int64_t>(0, s - at), e - (inst.last_arrival + inst.transfer_ns)});
      at = std::max(at, e);
      RankSummary& rs = rep.ranks[r];
      ++rs.collectives;
      int64_t wait = std::max<int64_t>(0, inst.last_arrival - s);
      int64_t from = std::max(s, inst.last_arrival);
      rs.wait_ns += wait;
      rs.transfer_ns += std::max<int64_t>(0, e - from);
      // Hiding the exposed transfer needs compute to hide it behind: what runs after it and
      // before the rank's next collective within the same iteration (a step's last collective
      // is followed by the step's end, which waits for it).
      int64_t exposed_ns = std::max<int64_t>(0, e - from) -
                           CoveredWithin(ranks[r].compute, from + off, std::max(from, e) + off);
      int64_t next = ranks[r].last_ns;
      if (c + 1 < ranks[r].calls.size()) next = ranks[r].calls[c + 1].start_ns;
      int64_t boundary = IterationEnd(*ranks[r].in->trace, call.end_ns);
      int64_t behind = CoveredWithin(ranks[r].compute, call.end_ns,
                                     std::max(call.end_ns, std::min(next, boundary)));
      exposed_by_rank[i].push_back(std::min(exposed_ns, behind));
      exposed_ns_total += exposed_ns;
      if (inst.last_rank == r) {
        ++rs.last_arrivals;
        rs.late_cost_ns += inst.last_arrival - inst.second_arrival;
      }
    }
    tr.tail_ns = std::max<int64_t>(0, ranks[r].last_ns - off - at);
    tl.ranks.push_back(std::move(tr));
  }
  tl.transfer_ns.resize(instances.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    tl.transfer_ns[i] = instances[i].transfer_ns;
    exposed[i] = Median(exposed_by_rank[i]);
    if (!instances[i].aligned.empty()) ++rep.instances;
  }
  for (const auto& s : rep.ranks) rep.wait_ns += s.wait_ns, rep.transfer_ns += s.transfer_ns;

  // Per collective kind and size.
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
    FindCauses(ranks, instances, rep, st, k);
    rep.straggler = std::move(st);
  }

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
    return rep;
  }
  struct Priced {
    Finding f;
    JobFix fix;
  };
  std::vector<Priced> cands;
  auto empty_fix = [&] {
    JobFix f;
    f.phase_cut.resize(tl.ranks.size());
    for (size_t r = 0; r < tl.ranks.size(); ++r) f.phase_cut[r].assign(tl.ranks[r].calls.size(), 0);
    f.transfer_cut.assign(instances.size(), 0);
    return f;
  };
  auto arrival_cut = [&](bool straggler_only) {
    JobFix f = empty_fix();
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (tl_rank[r] == SIZE_MAX) continue;
      const auto& calls = tl.ranks[tl_rank[r]].calls;
      size_t pos = 0;
      for (size_t c = 0; c < ranks[r].calls.size() && pos < calls.size(); ++c) {
        size_t i = ranks[r].instance_of[c];
        if (i == SIZE_MAX || instances[i].aligned.empty()) continue;
        const Instance& inst = instances[i];
        int64_t s = ranks[r].calls[c].start_ns - rep.ranks[r].offset_ns;
        int64_t cut = 0;
        if (straggler_only)
          cut = inst.last_rank == r && r == k ? inst.last_arrival - inst.second_arrival : 0;
        else
          cut = std::max<int64_t>(0, s - inst.mean_arrival);
        f.phase_cut[tl_rank[r]][pos++] = cut;
      }
    }
    return f;
  };
  const double span = static_cast<double>(std::max<int64_t>(1, rep.span_ns));
  if (rep.straggler) {
    const Straggler& st = *rep.straggler;
    Priced p{{}, arrival_cut(true)};
    Finding& f = p.f;
    f.rule = "rank-straggler";
    std::string cause;
    if (!st.causes.empty()) {
      const StragglerCause& c = st.causes.front();
      cause = c.kind == "kernel"
                  ? "its GPU spends longer in " + base::ShortenName(c.what, 60)
                  : "its GPU idles while its host runs " + base::ShortenName(c.what, 60);
    }
    f.title = "Rank " + std::to_string(st.rank) + " arrives last at " + base::FormatCount(st.late) +
              " of its " + base::FormatCount(st.instances) + " collectives" +
              (cause.empty() ? "" : ": " + cause);
    f.fix = "rank " + std::to_string(st.rank) +
            " arrives at each collective it was last to with the second-latest rank";
    f.detail = "late arrivals cost the others " + base::FormatDuration(st.cost_ns) +
               "; its GPU idled " + base::FormatDuration(st.idle_excess_ns) +
               " more than the median rank in those phases";
    for (const auto& c : st.causes) {
      f.detail += "; " + c.kind + " " + base::ShortenName(c.what, 60) + " +" +
                  base::FormatDuration(c.excess_ns) + " (" + base::FormatDuration(c.rank_ns) +
                  " vs " + base::FormatDuration(c.others_ns) + ")";
    }
    if (!st.causes.empty()) {
      if (st.causes.front().kind == "kernel")
        f.where.kernel = st.causes.front().what;
      else
        f.where.op = st.causes.front().what;
    }
    f.advice =
        "Find why this rank is slower: the same kernel taking longer points at the device "
        "(clocks, thermal throttling, a different GPU SKU, ECC retirement) or at more work (an "
        "uneven shard, MoE expert load); an idle GPU with a busy host points at the host (CPU "
        "affinity and NUMA binding, a noisy neighbour, Python work, data loading). Profile it "
        "alone with gpuscope analyze on its trace.";
    // Evidence: its latest arrivals.
    std::vector<const Instance*> late;
    for (const auto& inst : instances) {
      if (!inst.aligned.empty() && inst.last_rank == k) late.push_back(&inst);
    }
    std::sort(late.begin(), late.end(), [](const Instance* a, const Instance* b) {
      return a->last_arrival - a->second_arrival > b->last_arrival - b->second_arrival;
    });
    for (size_t e = 0; e < late.size() && e < options.evidence; ++e) {
      const Instance& inst = *late[e];
      const auto& call = ranks[inst.aligned.front().first].calls[inst.aligned.front().second];
      f.evidence.push_back({inst.second_arrival, inst.last_arrival - inst.second_arrival, -1,
                            call.name + (call.group.empty() ? "" : " (group " + call.group + ")") +
                                ": rank " + std::to_string(st.rank) + " arrived " +
                                base::FormatDuration(inst.last_arrival - inst.second_arrival) +
                                " after the second-latest rank"});
    }
    cands.push_back(std::move(p));
  }
  if (rep.wait_ns > 0) {
    Priced p{{}, arrival_cut(false)};
    Finding& f = p.f;
    f.rule = "collective-skew";
    f.title = "Ranks wait " + base::FormatDuration(rep.wait_ns) +
              " in collectives for the last rank to arrive (" +
              Percent(100.0 * static_cast<double>(rep.wait_ns) /
                      static_cast<double>(std::max<int64_t>(1, rep.wait_ns + rep.transfer_ns))) +
              " of collective time)";
    f.fix = "every rank arrives at each collective at the ranks' mean arrival (work balanced)";
    f.detail = base::FormatCount(rep.instances) + " instances; skew (waiting) " +
               base::FormatDuration(rep.wait_ns) + ", transfer " +
               base::FormatDuration(rep.transfer_ns) + ", summed over ranks";
    if (!rep.collectives.empty()) f.where.op = rep.collectives.front().name;
    f.advice =
        "Balance the work between collectives: even shards, sequence lengths and batch sizes "
        "per rank, balanced MoE routing; pin host threads (NUMA/CPU affinity) so that no rank's "
        "launches lag; avoid per-rank host syncs (.item()) right before a collective.";
    std::vector<const Instance*> skewed;
    for (const auto& inst : instances) {
      if (!inst.aligned.empty()) skewed.push_back(&inst);
    }
    std::sort(skewed.begin(), skewed.end(), [](const Instance* a, const Instance* b) {
      return a->last_arrival - a->mean_arrival > b->last_arrival - b->mean_arrival;
    });
    for (size_t e = 0; e < skewed.size() && e < options.evidence; ++e) {
      const Instance& inst = *skewed[e];
      const auto& call = ranks[inst.aligned.front().first].calls[inst.aligned.front().second];
      f.evidence.push_back({inst.mean_arrival, inst.last_arrival - inst.mean_arrival, -1,
                            call.name + ": last rank " +
                                std::to_string(rep.ranks[inst.last_rank].rank) + " arrived " +
                                base::FormatDuration(inst.last_arrival - inst.mean_arrival) +
                                " after the mean"});
    }
    cands.push_back(std::move(p));
  }
  int64_t exposed_total = 0;  // what compute after it could hide, per instance (median rank)
  for (int64_t e : exposed) exposed_total += e;
  if (exposed_total > 0) {
    Priced p{{}, empty_fix()};
    p.fix.transfer_cut = exposed;
    Finding& f = p.f;
    f.rule = "comm-exposed";
    f.title =
        "Communication not overlapped with compute: " + base::FormatDuration(exposed_ns_total) +
        " of transfer with the GPU doing nothing else (all ranks)";
    f.fix =
        "each collective's exposed transfer runs behind the compute that follows it before "
        "the rank's next collective in the same step";
    f.detail = "overlap " +
               Percent(rep.comm_ns > 0 ? 100.0 * static_cast<double>(rep.overlapped_comm_ns) /
                                             static_cast<double>(rep.comm_ns)
                                       : 0) +
               " of communication kernel time, all ranks";
    if (!rep.collectives.empty()) f.where.op = rep.collectives.front().name;
    f.advice =
        "Overlap communication with compute: launch collectives asynchronously on their own "
        "stream and wait only where the result is needed (DDP gradient bucketing, FSDP "
        "prefetch, async tensor parallelism / torch.compile micro-pipelining), or send less "
        "(bf16/fp8 communication, fewer larger collectives).";
    cands.push_back(std::move(p));
  }
  // Price: alone, then in order on top of each other.
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t i = 0; i < cands.size(); ++i) {
    int64_t fixed = ReplayJob(tl, &cands[i].fix);
    Finding& f = cands[i].f;
    f.baseline_ns = base;
    f.fixed_ns = fixed < 0 ? base : fixed;
    f.standalone_ns = std::max<int64_t>(0, base - f.fixed_ns);
    if (100.0 * static_cast<double>(f.standalone_ns) / span >= options.min_impact_percent)
      order.emplace_back(f.standalone_ns, i);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  JobFix combined = empty_fix();
  int64_t prev = base;
  for (const auto& [saving, i] : order) {
    const JobFix& fx = cands[i].fix;
    for (size_t r = 0; r < combined.phase_cut.size(); ++r) {
      for (size_t c = 0; c < combined.phase_cut[r].size(); ++c)
        combined.phase_cut[r][c] = std::max(combined.phase_cut[r][c], fx.phase_cut[r][c]);
    }
    for (size_t j = 0; j < combined.transfer_cut.size(); ++j)
      combined.transfer_cut[j] = std::max(combined.transfer_cut[j], fx.transfer_cut[j]);
    int64_t now = ReplayJob(tl, &combined);
    if (now < 0) now = prev;
    Finding f = std::move(cands[i].f);
    f.impact_ns = std::clamp<int64_t>(prev - now, 0, f.standalone_ns);
    prev = std::min(prev, now);
    f.impact_percent = 100.0 * static_cast<double>(f.impact_ns) / span;
    f.severity = std::string(SeverityFor(f.impact_percent));
    f.changes = base::FormatDuration(f.standalone_ns) + " alone";
    if (100.0 * static_cast<double>(f.impact_ns) / span >= options.min_impact_percent)
      rep.findings.push_back(std::move(f));
  }
  rep.combined_ns = prev;
  return rep;
}

}  // namespace gpuscope::analysis
