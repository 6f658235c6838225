#include <algorithm>
#include <climits>
#include <map>
#include <string>

#include "analysis/job/job_internal.h"

namespace gpuscope::analysis::job_internal {
namespace {

// Time per name in a rank's late phases: kernels (not communication) and host ops (by their self
// time), each counted for the first collective issued after it (program order, as
// RankTimeline keeps them), so that a rank whose host runs ahead of its GPU counts the same ops
// as one whose host lags. Idle = time in the late phases' windows without GPU work.
struct WindowTimes {
  std::map<std::string, int64_t> kernels, ops;
  int64_t idle_ns = 0;
};

void AddNames(const RankData& d, const std::vector<uint32_t>& begin,
              const std::vector<NameTime>& rows, size_t c, std::map<std::string, int64_t>& out) {
  for (uint32_t i = begin[c]; i < begin[c + 1]; ++i) out[d.names[rows[i].name]] += rows[i].ns;
}

}  // namespace

// The straggler's causes: per name, its time minus the other ranks' median in the phases before
// the collectives it arrived last to.
// `origin`: where the job's work starts (reference clock), the first phase's start on every rank.
void FindCauses(const std::vector<RankData>& ranks, const std::vector<Instance>& instances,
                const JobReport& rep, int64_t origin, Straggler& st, size_t k) {
  // Per rank, its late phases: the windows from the previous call's end (the first: from the
  // origin) to the start of each call k arrived last to.
  std::vector<WindowTimes> times(ranks.size());
  std::vector<bool> has_window(ranks.size(), false);
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!rep.ranks[r].aligned) continue;
    const RankData& d = ranks[r];
    // The GPU's busy time up to prev_end: none at the origin, at or before its first activity.
    int64_t prev_end = origin + rep.ranks[r].offset_ns, busy_to_prev_end = 0;
    for (size_t c = 0; c < d.calls.size(); ++c) {
      size_t i = d.instance_of[c];
      if (i != SIZE_MAX && instances[i].last_rank == k && !instances[i].aligned.empty()) {
        has_window[r] = true;
        int64_t len = std::max<int64_t>(0, d.calls[c].start_ns - prev_end);
        times[r].idle_ns += len - (len > 0 ? d.busy_to_start_ns[c] - busy_to_prev_end : 0);
        AddNames(d, d.kernel_time_begin, d.kernel_time, c, times[r].kernels);
        AddNames(d, d.op_time_begin, d.op_time, c, times[r].ops);
      }
      if (d.calls[c].end_ns > prev_end)
        prev_end = d.calls[c].end_ns, busy_to_prev_end = d.busy_to_end_ns[c];
    }
  }
  auto excess = [&](auto member, CauseKind kind) {
    std::map<std::string, int64_t> names = times[k].*member;
    for (const auto& [name, ns] : names) {
      std::vector<int64_t> others;
      for (size_t r = 0; r < ranks.size(); ++r) {
        if (r == k || !has_window[r]) continue;
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
    if (r != k && has_window[r]) idle.push_back(times[r].idle_ns);
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
