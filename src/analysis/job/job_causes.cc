#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <unordered_map>

#include "analysis/job/job_internal.h"

namespace gpuscope::analysis::job_internal {
namespace {

// Time per name in a rank's late phases: kernels (not communication) and host ops (by their self
// time), each counted for the first collective issued after it (program order: the kernel's
// launch call, RankData::call_of_kernel; the op's start against RankData::issued_ns), so that a
// rank whose host runs ahead of its GPU counts the same ops as one whose host lags. Idle = time
// in the late phases' windows (own clock; sorted, disjoint) without GPU work.
struct WindowTimes {
  std::map<std::string, int64_t> kernels, ops;
  int64_t idle_ns = 0;
};

WindowTimes TimesIn(const model::Trace& t, const RankData& d, const std::vector<Interval>& w,
                    const std::vector<bool>& late_call) {
  WindowTimes out;
  if (w.empty()) return out;
  std::unordered_map<model::StringId, int64_t> ops;
  std::vector<int64_t> self(t.cpu.size());
  for (size_t i = 0; i < t.cpu.size(); ++i) self[i] = t.cpu.dur_ns[i];
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.parent[i] != model::kNoRow) self[t.cpu.parent[i]] -= t.cpu.dur_ns[i];
  }
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    if (t.cpu.kind[i] != model::CpuRangeKind::kOp || self[i] <= 0) continue;
    // The collective this op comes before: the first issued after it started.
    auto it = std::upper_bound(d.issued_ns.begin(), d.issued_ns.end(), t.cpu.start_ns[i]);
    size_t c = static_cast<size_t>(it - d.issued_ns.begin());
    if (c < late_call.size() && late_call[c]) ops[t.cpu.name[i]] += self[i];
  }
  for (const auto& iv : w)
    out.idle_ns += (iv.second - iv.first) - CoveredWithin(d.busy, iv.first, iv.second);
  for (const auto& [id, ns] : ops) out.ops[std::string(t.str(id))] += ns;
  return out;
}

}  // namespace

// The straggler's causes: per name, its time minus the other ranks' median in the phases before
// the collectives it arrived last to.
// `origin`: where the job's work starts (reference clock), the first phase's start on every rank.
void FindCauses(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                const JobReport& rep, int64_t origin, Straggler& st, size_t k) {
  std::vector<std::vector<Interval>> windows(ranks.size());
  std::vector<std::vector<bool>> late(ranks.size());  // per rank and call: k arrived last to it
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!rep.ranks[r].aligned) continue;
    const RankData& d = ranks[r];
    late[r].assign(d.calls.size(), false);
    int64_t prev_end = origin + rep.ranks[r].offset_ns;
    for (size_t c = 0; c < d.calls.size(); ++c) {
      size_t i = d.instance_of[c];
      late[r][c] = i != SIZE_MAX && instances[i].last_rank == k && !instances[i].aligned.empty();
      if (late[r][c]) windows[r].emplace_back(prev_end, std::max(prev_end, d.calls[c].start_ns));
      prev_end = std::max(prev_end, d.calls[c].end_ns);
    }
  }
  std::vector<WindowTimes> times(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (windows[r].empty()) continue;
    const model::Trace& t = *ranks[r].in->trace;
    times[r] = TimesIn(t, ranks[r], windows[r], late[r]);
    std::unordered_map<model::StringId, int64_t> kernels;
    for (size_t kr = 0; kr < t.kernels.size(); ++kr) {
      size_t c = ranks[r].call_of_kernel[kr];
      if (c != SIZE_MAX && late[r][c]) kernels[t.kernels.name[kr]] += t.kernels.dur_ns[kr];
    }
    for (const auto& [id, ns] : kernels) times[r].kernels[std::string(t.str(id))] += ns;
  }
  auto excess = [&](auto member, CauseKind kind) {
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
  excess(&WindowTimes::kernels, CauseKind::kKernel);
  excess(&WindowTimes::ops, CauseKind::kHostOp);
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
    if (c.kind == CauseKind::kHostOp && st.idle_excess_ns <= 0) continue;
    if (kept.size() < 3) kept.push_back(c);
  }
  st.causes = std::move(kept);
}

}  // namespace gpuscope::analysis::job_internal
