// --min-impact: a finding is listed when its fix alone saves at least that share of the window
// (or it is listed whatever it saves: information, summaries). Pricing leaves out the fixes
// whose edits remove too little to save it, unreplayed; the listing must be the one made with
// every fix replayed, at every threshold.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"
#include "analysis/findings/registry.h"

namespace gpuscope::analysis {
namespace threshold_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

using Key = std::tuple<std::string, std::string, std::string, int64_t>;  // rule, title, where, ns

Key KeyOf(const Finding& f) {
  return {f.rule, f.title, f.where.python + "|" + f.where.op + "|" + f.where.kernel,
          f.standalone_ns};
}

// Steps whose problems cost from a few us to a few ms a step: host gaps of several lengths,
// syncs, pageable copies and a kernel slower once.
const model::Trace& Model(Builder& b) {
  for (int s = 0; s < 12; ++s) {
    const int64_t t0 = s * 2000 * us;
    b.Step(s, t0, 2000 * us);
    b.Api("cudaDeviceSynchronize", t0 + 480 * us, (s == 7 ? 400 : 45) * us, 0);
    b.Launch("gemm", t0 + 1 * us, 4 * us, t0 + 10 * us, 300 * us);
    b.Launch("softmax", t0 + 400 * us, 4 * us, t0 + 405 * us, 50 * us);
    b.Launch("layernorm", t0 + 470 * us, 4 * us, t0 + 480 * us, (s == 7 ? 400 : 40) * us);
    b.Copy(model::MemopKind::kHtoD, "cudaMemcpy", t0 + 1200 * us, 30 * us, t0 + 1205 * us, 20 * us,
           1 << 20, model::MemoryKind::kPageable);
    b.Launch("tail", t0 + 1900 * us, 4 * us, t0 + 1910 * us, 3 * us);
  }
  return b.Link();
}

TEST(MinImpact, ListingIsTheOneWithEveryFixReplayed) {
  Builder b;
  const model::Trace& t = Model(b);
  AnalyzeOptions all;
  all.threads = 1;
  all.min_impact_percent = 0;
  const AnalysisReport every = Analyze(t, all);
  size_t priced = 0;
  for (const Finding& f : every.findings) priced += f.standalone_ns > 0;
  ASSERT_GE(priced, 3u);  // the model has fixes of several sizes
  for (double threshold : {0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0}) {
    AnalyzeOptions o = all;
    o.min_impact_percent = threshold;
    const AnalysisReport r = Analyze(t, o);
    std::set<Key> want, got;
    for (const Finding& f : every.findings) {
      if (ListedWhateverItSaves(f) || f.standalone_percent >= threshold) want.insert(KeyOf(f));
    }
    for (const Finding& f : r.findings) got.insert(KeyOf(f));
    EXPECT_EQ(got, want) << "--min-impact " << threshold;
  }
}

}  // namespace
}  // namespace threshold_test
}  // namespace gpuscope::analysis
