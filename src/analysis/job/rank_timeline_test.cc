#include "analysis/job/rank_timeline.h"

#include <gtest/gtest.h>

#include <random>

#include "analysis/common/test_model_builder.h"
#include "analysis/job/job.h"
#include "analysis/job/rank_timeline_codec.h"

namespace gpuscope::analysis {
namespace rank_timeline_test {  // this file's helpers, apart in a unity build
namespace {

const std::string kArgs = R"({"Collective name":"allreduce","dtype":"Float","In msg nelems":256,)"
                          R"("Out msg nelems":256,"Group size":2,"Process Group Name":"0"})";

// One rank: gemm_a [0, 100) then an all-reduce [100, 200); gemm_b [150, 180) runs beside it
// (issued after it); gemm_c [250, 290), then a second all-reduce [300, 400). One step [0, 500).
// `late`: gemm_a takes that much longer and the rank arrives that late at the first all-reduce.
model::Trace& OneRank(test_models::Builder& b, int64_t shift, int64_t late = 0) {
  b.Step(1, shift, 500);
  b.Op("aten::mm", shift, 4);
  b.Launch("gemm_a", shift + 1, 2, shift + 0, 100 + late);
  b.Op("record_param_comms", shift + 5, 3, kArgs);
  b.Launch("ncclDevKernel_Generic", shift + 6, 1, shift + 100 + late, 100 - late);
  b.Launch("gemm_b", shift + 10, 2, shift + 150, 30);
  b.Launch("gemm_c", shift + 12, 2, shift + 250, 40);
  b.Op("record_param_comms", shift + 15, 3, kArgs);
  b.Launch("ncclDevKernel_Generic", shift + 16, 1, shift + 300, 100);
  return b.Link();
}

TEST(RankTimeline, KeepsTheMeasuresAtTheCallsBoundariesAndBesideThem) {
  test_models::Builder b;
  RankTimeline t = SummarizeRank(OneRank(b, 0), 3, "rank3.json");
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.steps, 1u);
  EXPECT_EQ(t.step_median_ns, 500);
  ASSERT_EQ(t.calls.size(), 2u);
  EXPECT_EQ(t.first_ns, 0);
  EXPECT_EQ(t.last_ns, 400);
  EXPECT_EQ(t.busy_ns, 200 + 40 + 100);
  EXPECT_EQ(t.compute_ns, 100 + 30 + 40);
  EXPECT_EQ(t.comm_ns, 200);
  EXPECT_EQ(t.overlapped_comm_ns, 30);
  EXPECT_EQ(t.busy_to_start_ns, (std::vector<int64_t>{100, 240}));
  EXPECT_EQ(t.busy_to_end_ns, (std::vector<int64_t>{200, 340}));
  // gemm_b and gemm_c were issued after the first call: the second call's work.
  EXPECT_EQ(t.work_ns, (std::vector<int64_t>{100, 70}));
  EXPECT_EQ(t.work_start_ns, (std::vector<int64_t>{0, 150, INT64_MAX}));
  // After the first call: gemm_c before the second call; after the second, nothing in the step.
  EXPECT_EQ(t.compute_after_ns, (std::vector<int64_t>{40, 0}));
  ASSERT_EQ(t.beside_begin, (std::vector<uint32_t>{0, 1, 1}));
  EXPECT_EQ(t.beside[0], (Interval{150, 180}));
  // Names per call: kernels (not communication) and host ops by self time.
  ASSERT_EQ(t.kernel_time_begin, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(t.names[t.kernel_time[0].name], "gemm_a");
  EXPECT_EQ(t.kernel_time[0].ns, 100);
  ASSERT_EQ(t.op_time_begin.size(), 3u);
  EXPECT_EQ(t.op_time_begin[1] - t.op_time_begin[0], 2u);  // aten::mm, record_param_comms
}

TEST(RankTimeline, TravelsAsBytesAndBackUnchanged) {
  test_models::Builder b;
  RankTimeline t = SummarizeRank(OneRank(b, 7), 1, "dir/rank-1.json");
  std::string bytes = EncodeRankTimeline(t);
  auto back = DecodeRankTimeline(bytes, "x");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, t);
}

TEST(RankTimeline, DamagedBytesEndInOneErrorNeverACrash) {
  test_models::Builder b;
  const std::string bytes = EncodeRankTimeline(SummarizeRank(OneRank(b, 0), 0, "r0"));
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto cut = DecodeRankTimeline(std::string_view(bytes).substr(0, n), "r0.summary");
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_EQ(cut.status().message().rfind("r0.summary: not a rank summary", 0), 0u);
  }
  EXPECT_FALSE(DecodeRankTimeline(bytes + "x", "r0").ok());
  // Every byte changed at random: decoded or refused; what decodes, the job analysis takes.
  std::mt19937 rng(5);
  for (int i = 0; i < 3000; ++i) {
    std::string bad = bytes;
    bad[rng() % bad.size()] = static_cast<char>(rng());
    auto t = DecodeRankTimeline(bad, "r0");
    if (!t.ok()) continue;
    RankTimeline other = *t;
    other.rank = 1;
    (void)AnalyzeJob(std::vector<RankTimeline>{*t, other});
  }
}

// The job of summaries is the job of traces: the same report, field by field that matters.
TEST(RankTimeline, AJobOfDecodedSummariesEqualsTheJobOfTraces) {
  std::vector<test_models::Builder> b(3);
  std::vector<RankInput> in;
  std::vector<RankTimeline> summaries;
  for (int r = 0; r < 3; ++r) {
    model::Trace& t = OneRank(b[r], r * 1'000'000, r == 2 ? 60 : 0);
    in.push_back({r, "rank" + std::to_string(r), &t});
    auto back = DecodeRankTimeline(EncodeRankTimeline(SummarizeRank(t, r, in.back().path)), "x");
    ASSERT_TRUE(back.ok());
    summaries.push_back(std::move(*back));
  }
  JobReport a = AnalyzeJob(in), c = AnalyzeJob(std::move(summaries));
  ASSERT_EQ(a.ranks.size(), c.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].offset_ns, c.ranks[r].offset_ns);
    EXPECT_EQ(a.ranks[r].wait_ns, c.ranks[r].wait_ns);
    EXPECT_EQ(a.ranks[r].comm_exposed_ns, c.ranks[r].comm_exposed_ns);
  }
  EXPECT_EQ(a.instances, 2u);
  ASSERT_TRUE(a.straggler && c.straggler);
  EXPECT_EQ(a.straggler->rank, 2);
  EXPECT_EQ(a.straggler->causes.size(), c.straggler->causes.size());
  EXPECT_EQ(a.instances, c.instances);
  EXPECT_EQ(a.replayed_ns, c.replayed_ns);
  EXPECT_EQ(a.combined_ns, c.combined_ns);
  ASSERT_FALSE(a.findings.empty());
  ASSERT_EQ(a.findings.size(), c.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].rule, c.findings[i].rule);
    EXPECT_EQ(a.findings[i].impact_ns, c.findings[i].impact_ns);
  }
}

}  // namespace
}  // namespace rank_timeline_test
}  // namespace gpuscope::analysis
