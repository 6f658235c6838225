#pragma once
// PriceInOrder: the one pricing engine of findings, for a single trace (findings/pricing.cc) and
// for a job of ranks (job/job_pricing.cc). Each fix is replayed alone (its standalone saving,
// capped at what the problem measurably costs where the caller knows it); the fixes that count
// (the caller's threshold) are then added in order - by tier (root causes before catch-alls),
// then by standalone saving - each on top of the ones before it, and its impact is what it adds,
// capped at its own standalone saving. So no two findings claim the same time, the impacts never
// sum past the combined saving (the synergy of fixes together stays in the combined saving), and
// the combined saving never exceeds the window.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuscope::analysis {

// One candidate fix: null `fix` for information that has nothing to price.
template <typename Fix>
struct PriceCandidate {
  const Fix* fix = nullptr;
  int tier = 0;         // lower tiers are added first
  int64_t cap_ns = -1;  // most the fix can save (what the problem costs); -1: no cap
};

struct PriceResult {
  int64_t combined_ns = 0;               // the replayed window with every counted fix
  std::vector<int64_t> alone_window_ns;  // per candidate: the window replayed with it alone
  std::vector<int64_t> standalone_ns;    // per candidate: saving alone (capped)
  std::vector<int64_t> impact_ns;        // per candidate: saving on top of the ones before it
  std::vector<bool> capped;              // per candidate: the standalone saving hit the cap
};

// `replay(const Fix*)` gives the replayed window with the fix (null: unchanged), or < 0 when the
// fix cannot be replayed (then it saves nothing); `merge(Fix& into, const Fix& f)` adds a fix to
// the combination; `counts(standalone_ns)` says whether a fix is worth reporting (below it, a
// fix is noise and is left out of the combination, so the impacts add up to the combined saving).
template <typename Fix, typename ReplayFn, typename MergeFn, typename CountsFn>
PriceResult PriceInOrder(int64_t baseline_ns, const std::vector<PriceCandidate<Fix>>& cands,
                         Fix combined, ReplayFn replay, MergeFn merge, CountsFn counts) {
  const size_t n = cands.size();
  PriceResult r;
  r.alone_window_ns.assign(n, baseline_ns), r.standalone_ns.assign(n, 0), r.impact_ns.assign(n, 0);
  r.capped.assign(n, false);
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (!cands[i].fix) continue;
    const int64_t w = replay(cands[i].fix);
    if (w >= 0) r.alone_window_ns[i] = w;
    int64_t alone = w < 0 ? 0 : std::max<int64_t>(0, baseline_ns - w);
    if (cands[i].cap_ns >= 0 && alone > cands[i].cap_ns)
      alone = cands[i].cap_ns, r.capped[i] = true;
    r.standalone_ns[i] = alone;
    if (alone > 0 && counts(alone)) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (cands[a].tier != cands[b].tier) return cands[a].tier < cands[b].tier;
    return r.standalone_ns[a] > r.standalone_ns[b];
  });
  int64_t window = baseline_ns;
  for (size_t i : order) {
    merge(combined, *cands[i].fix);
    // One uncapped fix: the combination is the fix alone, already replayed.
    int64_t w =
        order.size() == 1 && !r.capped[i] ? baseline_ns - r.standalone_ns[i] : replay(&combined);
    if (w < 0) w = window;
    // What it adds, but never more than it saves alone: the extra that fixes unlock together
    // (synergy) belongs to no single one of them and stays in the combined saving only.
    r.impact_ns[i] = std::clamp<int64_t>(window - w, 0, r.standalone_ns[i]);
    window = std::min(window, w);
  }
  r.combined_ns = window;
  return r;
}

}  // namespace gpuscope::analysis
