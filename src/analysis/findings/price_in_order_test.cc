// PriceInOrder on a model of fixes whose savings are known: a fix is a set of problems, the
// window is the baseline less each fixed problem's saving, plus a synergy when two named
// problems are fixed together. Checked against the contract in price_in_order.h, and that no
// combination is replayed twice (the first is the first fix alone).

#include "analysis/findings/price_in_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace gpuscope::analysis {
namespace price_in_order_test {  // this file's helpers, apart in a unity build
namespace {

using Fix = std::set<int>;  // the problems fixed

constexpr int64_t kBase = 1'000;

struct Model {
  explicit Model(std::vector<int64_t> s = {}, int64_t both = 0)
      : saves(std::move(s)), synergy(both) {}
  std::vector<int64_t> saves;  // per problem
  int64_t synergy = 0;         // saved besides when problems 0 and 1 are both fixed
  std::vector<Fix> replayed;   // every fix replayed, in order
  int batches = 0;

  int64_t Window(const Fix& f) const {
    int64_t w = kBase;
    for (int p : f) w -= saves[static_cast<size_t>(p)];
    if (f.count(0) && f.count(1)) w -= synergy;
    return std::max<int64_t>(0, w);
  }
  PriceResult Price(const std::vector<PriceCandidate<Fix>>& in, int64_t min_ns = 1) {
    return PriceInOrder(
        kBase, in, Fix{},
        [&](const std::vector<const Fix*>& batch) {
          ++batches;
          std::vector<int64_t> out(batch.size(), -1);
          for (size_t i = 0; i < batch.size(); ++i) {
            if (!batch[i]) continue;
            replayed.push_back(*batch[i]);
            out[i] = Window(*batch[i]);
          }
          return out;
        },
        [](Fix& all, const Fix& f) { all.insert(f.begin(), f.end()); },
        [&](int64_t alone) { return alone >= min_ns; });
  }
};

std::vector<PriceCandidate<Fix>> Candidates(const std::vector<Fix>& fixes) {
  std::vector<PriceCandidate<Fix>> in(fixes.size());
  for (size_t i = 0; i < fixes.size(); ++i) in[i].fix = &fixes[i];
  return in;
}

TEST(PriceInOrder, ImpactsInOrderOfSavingAndNoReplayTwice) {
  Model m{{100, 300, 50, 0}};
  const std::vector<Fix> fixes{{0}, {1}, {2}, {3}};
  const PriceResult r = m.Price(Candidates(fixes));
  EXPECT_EQ(r.order, (std::vector<size_t>{1, 0, 2}));  // problem 3 saves nothing
  EXPECT_EQ(r.standalone_ns, (std::vector<int64_t>{100, 300, 50, 0}));
  EXPECT_EQ(r.impact_ns, (std::vector<int64_t>{100, 300, 50, 0}));
  EXPECT_EQ(r.combined_ns, kBase - 450);
  // Four alone, then {1, 0} and {1, 0, 2}: the combination {1} is the fix alone.
  std::set<Fix> distinct(m.replayed.begin(), m.replayed.end());
  EXPECT_EQ(distinct.size(), m.replayed.size());
  EXPECT_EQ(m.replayed.size(), 6u);
  EXPECT_EQ(m.replayed[4], (Fix{0, 1}));
  EXPECT_EQ(m.replayed[5], (Fix{0, 1, 2}));
}

TEST(PriceInOrder, SynergyStaysInTheCombinedSaving) {
  Model m{{100, 300}, 200};
  const std::vector<Fix> fixes{{0}, {1}};
  const PriceResult r = m.Price(Candidates(fixes));
  // Each impact is capped at its standalone saving; the 200 found together belong to neither.
  EXPECT_EQ(r.impact_ns, (std::vector<int64_t>{100, 300}));
  EXPECT_EQ(r.combined_ns, kBase - 600);
}

TEST(PriceInOrder, OneFixCountsNoCombinationReplayed) {
  for (int64_t cap : {-1, 40}) {
    Model m{{100, 2}};
    const std::vector<Fix> fixes{{0}, {1}};
    std::vector<PriceCandidate<Fix>> in = Candidates(fixes);
    in[0].cap_ns = cap;
    const PriceResult r = m.Price(in, 10);  // problem 1's 2 ns is noise
    EXPECT_EQ(m.batches, 1);
    EXPECT_EQ(r.order, (std::vector<size_t>{0}));
    const int64_t saves = cap < 0 ? 100 : cap;
    EXPECT_EQ(r.standalone_ns[0], saves);
    EXPECT_EQ(r.capped[0], cap >= 0);
    EXPECT_EQ(r.impact_ns[0], saves);
    // The combined window is the one replayed: a cap bounds the finding, not the replay.
    EXPECT_EQ(r.combined_ns, kBase - 100);
  }
}

TEST(PriceInOrder, TiersFirstAndManyBatches) {
  // Twenty fixes (three batches of combinations); the last is a catch-all added after the rest.
  Model m;
  std::vector<Fix> fixes;
  for (int p = 0; p < 20; ++p) m.saves.push_back(10 + p), fixes.push_back({p});
  m.saves.push_back(500), fixes.push_back({20});
  std::vector<PriceCandidate<Fix>> in = Candidates(fixes);
  in[20].tier = 1;
  const PriceResult r = m.Price(in);
  ASSERT_EQ(r.order.size(), 21u);
  EXPECT_EQ(r.order.front(), 19u);
  EXPECT_EQ(r.order.back(), 20u);
  int64_t sum = 0;
  for (size_t i = 0; i < fixes.size(); ++i) {
    EXPECT_EQ(r.impact_ns[i], m.saves[i]);
    sum += r.impact_ns[i];
  }
  EXPECT_EQ(r.combined_ns, kBase - sum);
  EXPECT_EQ(m.replayed.size(), 21u + 20u);
  EXPECT_EQ(m.batches, 1 + 3);
}

// Fixes replayed on top of a baseline's edits (problem 9, the one-time costs) whose edits do
// not compose: applied twice, they would save twice. The combinations start from the baseline
// and take what each fix adds, so no combination holds the baseline's edits twice.
TEST(PriceInOrder, CombinationsHoldTheBaselineOnce) {
  using Edits = std::vector<int>;  // applied in turn: a problem twice saves twice
  const std::vector<int64_t> saves{100, 300, 50};
  constexpr int kBaseline = 9;
  constexpr int64_t kBaselineSaves = 200;
  auto window = [&](const Edits& e) {
    int64_t w = kBase;
    for (int p : e) w -= p == kBaseline ? kBaselineSaves : saves[static_cast<size_t>(p)];
    return w;
  };
  const std::vector<Edits> adds{{0}, {1}, {2}};
  std::vector<Edits> fixes;
  for (const Edits& a : adds) fixes.push_back({kBaseline, a[0]});
  std::vector<PriceCandidate<Edits>> in(fixes.size());
  for (size_t i = 0; i < fixes.size(); ++i) in[i].fix = &fixes[i], in[i].adds = &adds[i];
  std::vector<Edits> replayed;
  const PriceResult r = PriceInOrder(
      kBase - kBaselineSaves, in, Edits{kBaseline},
      [&](const std::vector<const Edits*>& batch) {
        std::vector<int64_t> out(batch.size(), -1);
        for (size_t i = 0; i < batch.size(); ++i) {
          if (batch[i]) replayed.push_back(*batch[i]), out[i] = window(*batch[i]);
        }
        return out;
      },
      [](Edits& all, const Edits& e) { all.insert(all.end(), e.begin(), e.end()); },
      [](int64_t alone) { return alone > 0; });
  for (const Edits& e : replayed) EXPECT_EQ(std::count(e.begin(), e.end(), kBaseline), 1);
  EXPECT_EQ(r.impact_ns, (std::vector<int64_t>{100, 300, 50}));
  EXPECT_EQ(r.combined_ns, kBase - kBaselineSaves - 450);
}

}  // namespace
}  // namespace price_in_order_test
}  // namespace gpuscope::analysis
