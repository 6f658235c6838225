#include <algorithm>
#include <climits>
#include <map>

#include "analysis/job/job_internal.h"
#include "base/text.h"

namespace gpuscope::analysis::job_internal {

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  int64_t hi = *mid;
  int64_t lo = *std::max_element(v.begin(), mid);
  return lo + (hi - lo) / 2;
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
      // A rank seen twice under one key (a repeated sequence number) keeps its first call. Ranks
      // are added one after another, so only the last member can be this rank.
      if (inst.members.empty() || inst.members.back().first != r) inst.members.emplace_back(r, c);
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
                   std::to_string(ranks[r0].rank) + ", " + ranks[r].calls[c].name + " on rank " +
                   std::to_string(ranks[r].rank) + "): the traces may not cover the same steps";
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
  // Per rank, the instances it took part in (instance order) and its call in each.
  std::vector<std::vector<std::pair<size_t, size_t>>> part_of(ranks.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    for (const auto& [r, c] : instances[i].members) part_of[r].emplace_back(i, c);
  }
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t s = 0; s < ranks.size(); ++s) {
      if (rep.ranks[s].aligned) continue;
      std::vector<int64_t> d;
      for (const auto& [i, own] : part_of[s]) {
        size_t ref = SIZE_MAX, ref_call = 0;
        for (const auto& [r, c] : instances[i].members) {
          if (rep.ranks[r].aligned) {
            ref = r, ref_call = c;
            break;
          }
        }
        if (ref == SIZE_MAX) continue;
        d.push_back(ranks[s].calls[own].end_ns -
                    (ranks[ref].calls[ref_call].end_ns - rep.ranks[ref].offset_ns));
      }
      if (d.empty()) continue;
      RankSummary& rs = rep.ranks[s];
      rs.offset_ns = Median(d);
      std::vector<int64_t> dev;
      for (int64_t x : d) dev.push_back(x > rs.offset_ns ? x - rs.offset_ns : rs.offset_ns - x);
      rs.offset_mad_ns = Median(dev);
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

}  // namespace gpuscope::analysis::job_internal
