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
  // What the fix adds to a combination, where `fix` holds more than that (a fix replayed on top
  // of a baseline's edits, which the combination starts from: merged again, edits that do not
  // compose, such as host spans scaled, would be applied twice); null: `fix` itself.
  const Fix* adds = nullptr;
};

struct PriceResult {
  int64_t combined_ns = 0;               // the replayed window with every counted fix
  std::vector<int64_t> alone_window_ns;  // per candidate: the window replayed with it alone
  std::vector<int64_t> standalone_ns;    // per candidate: saving alone (capped)
  std::vector<int64_t> impact_ns;        // per candidate: saving on top of the ones before it
  std::vector<bool> capped;              // per candidate: the standalone saving hit the cap
  std::vector<size_t> order;             // the counted candidates, in the order they were added
};

// `replay(fixes)` gives the replayed window with each fix of a batch (a null fix: skipped), or
// < 0 for a fix that cannot be replayed (then it saves nothing) - a batch, so that a caller can
// replay its fixes side by side. It is called first with every candidate alone (in candidate
// order), then with the combinations in PriceResult::order, in order, in batches, so that a
// caller can keep what each replay measured besides the window (the phases' times, pricing.cc).
// The first combination is the first fix alone, already replayed: it comes as a null fix (and
// no batch at all when one fix counts); `merge(Fix& into, const Fix& f)`
// adds a fix to the combination; `counts(standalone_ns)` says whether a fix is worth reporting
// (below it, a fix is noise and is left out of the combination, so the impacts add up to the
// combined saving).
template <typename Fix, typename ReplayFn, typename MergeFn, typename CountsFn>
PriceResult PriceInOrder(int64_t baseline_ns, const std::vector<PriceCandidate<Fix>>& cands,
                         Fix combined, ReplayFn replay, MergeFn merge, CountsFn counts) {
  const size_t n = cands.size();
  PriceResult r;
  r.alone_window_ns.assign(n, baseline_ns), r.standalone_ns.assign(n, 0), r.impact_ns.assign(n, 0);
  r.capped.assign(n, false);
  std::vector<const Fix*> alone_fixes(n, nullptr);
  for (size_t i = 0; i < n; ++i) alone_fixes[i] = cands[i].fix;
  const std::vector<int64_t> alone_windows = replay(alone_fixes);
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (!cands[i].fix) continue;
    const int64_t w = alone_windows[i];
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
  // The combinations in order (each fix on top of the ones before it), replayed in batches of
  // kBatch (copies of a growing combination held at a time). The first is the first fix alone
  // (what it adds merged into `combined`, the fix as replayed alone): its window is known.
  constexpr size_t kBatch = 8;
  std::vector<int64_t> combined_windows;
  for (size_t b = 0; b < order.size(); b += kBatch) {
    std::vector<Fix> prefixes;
    prefixes.reserve(kBatch);  // the batch points into it
    std::vector<const Fix*> batch;
    for (size_t k = b; k < std::min(order.size(), b + kBatch); ++k) {
      const PriceCandidate<Fix>& cand = cands[order[k]];
      merge(combined, cand.adds ? *cand.adds : *cand.fix);
      if (k == 0) {
        batch.push_back(nullptr);
        continue;
      }
      prefixes.push_back(combined);
      batch.push_back(&prefixes.back());
    }
    // Nothing to replay when one fix counts (its combination is itself).
    const std::vector<int64_t> windows =
        prefixes.empty() ? std::vector<int64_t>(batch.size(), -1) : replay(batch);
    combined_windows.insert(combined_windows.end(), windows.begin(), windows.end());
  }
  int64_t window = baseline_ns;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    int64_t w = k == 0 ? r.alone_window_ns[i] : combined_windows[k];
    if (w < 0) w = window;
    // What it adds, but never more than it saves alone: the extra that fixes unlock together
    // (synergy) belongs to no single one of them and stays in the combined saving only.
    r.impact_ns[i] = std::clamp<int64_t>(window - w, 0, r.standalone_ns[i]);
    window = std::min(window, w);
  }
  r.combined_ns = window;
  r.order = std::move(order);
  return r;
}

// A batch replay from a one-fix replay, one after another (a null fix: -1).
template <typename Fix, typename OneFn>
auto OneByOne(OneFn one) {
  return [one](const std::vector<const Fix*>& fixes) {
    std::vector<int64_t> out(fixes.size(), -1);
    for (size_t i = 0; i < fixes.size(); ++i)
      if (fixes[i]) out[i] = one(fixes[i]);
    return out;
  };
}

}  // namespace gpuscope::analysis
