#include "analysis/job/job.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/job/collectives.h"
#include "analysis/job/job_replay.h"
#include "analysis/job/job_rules.h"

namespace gpuscope::analysis {
namespace job_test {  // this file's helpers, apart in a unity build
namespace {

// Two ranks, one all-reduce: rank 1 arrives 20 later; the instance ends at its arrival + 5.
JobTimeline TwoRanks() {
  JobTimeline tl;
  tl.transfer_ns = {5};
  tl.ranks.push_back({0, 3, true, {{0, 10, 10, 0, true}}});
  tl.ranks.push_back({0, 1, true, {{0, 30, 30, 0, true}}});
  return tl;
}

TEST(JobReplay, CollectiveWaitsForTheLastRank) {
  JobTimeline tl = TwoRanks();
  EXPECT_EQ(ReplayJob(tl), 30 + 5 + 3);  // rank 0's tail is the longer one
  JobFix straggler{{{0}, {20}}, {}};
  EXPECT_EQ(ReplayJob(tl, &straggler), 10 + 5 + 3);
  // Detached: the tails run from each rank's arrival; the job still ends with the collective.
  JobFix detached{{}, {{1}, {1}}};
  EXPECT_EQ(ReplayJob(tl, &detached), 30 + 5);
}

TEST(JobReplay, ComputeBesideCollectivesDoesNotWaitForThem) {
  // Two instances, transfer 5 each. Waiting for the first: rank 0 arrives at the second at
  // 35 + 10, rank 1 at 35 + 10: ends at 50. Beside it: rank 0's compute goes on from its arrival
  // (10 + 10 = 20) but its second collective queues behind the first (35); rank 1 arrives at
  // 30 + 10: ends at 45.
  JobTimeline tl;
  tl.transfer_ns = {5, 5};
  tl.ranks.push_back({0, 0, true, {{0, 10, 10, 0, true}, {1, 10, 10, 0, true}}});
  tl.ranks.push_back({0, 0, true, {{0, 30, 30, 0, true}, {1, 10, 10, 0, true}}});
  EXPECT_EQ(ReplayJob(tl), 50);
  for (auto& r : tl.ranks) r.calls[1].after_end = false;
  EXPECT_EQ(ReplayJob(tl), 45);
}

TEST(JobReplay, OrdersThatDisagreeCannotBeReplayed) {
  JobTimeline tl;
  tl.transfer_ns = {1, 1};
  tl.ranks.push_back({0, 0, true, {{0, 1, 1, 0, true}, {1, 1, 1, 0, true}}});
  tl.ranks.push_back({0, 0, true, {{1, 1, 1, 0, true}, {0, 1, 1, 0, true}}});
  EXPECT_EQ(ReplayJob(tl), -1);
}

TEST(JobReplay, ChainsThroughSubgroups) {
  // Ranks 0-1 meet in instance 0, ranks 1-2 in instance 1: rank 0's lateness reaches rank 2.
  JobTimeline tl;
  tl.transfer_ns = {2, 2};
  tl.ranks.push_back({0, 0, true, {{0, 50, 50, 0, true}}});
  tl.ranks.push_back({0, 0, true, {{0, 10, 10, 0, true}, {1, 1, 1, 0, true}}});
  tl.ranks.push_back({0, 0, true, {{1, 5, 5, 0, true}}});
  EXPECT_EQ(ReplayJob(tl), 50 + 2 + 1 + 2);
}

TEST(Collectives, NamesSizesAndBusFactors) {
  EXPECT_EQ(NormalCollectiveName("_allgather_base"), "allgather");
  EXPECT_EQ(NormalCollectiveName("reduce_scatter_tensor"), "reduce_scatter");
  EXPECT_EQ(NormalCollectiveName("all_to_all"), "alltoall");
  EXPECT_EQ(NormalCollectiveName("AllReduce"), "allreduce");
  EXPECT_EQ(NormalCollectiveName("broadcast_"), "broadcast");
  EXPECT_EQ(DtypeBytes("BFloat16"), 2);
  EXPECT_EQ(DtypeBytes("Float"), 4);
  EXPECT_EQ(DtypeBytes("int8_t"), 1);
  EXPECT_EQ(DtypeBytes("complex"), 0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("allreduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("allgather", 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("broadcast", 4), 1.0);
  EXPECT_TRUE(IsCommKernelName("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsCommKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"));
  EXPECT_FALSE(IsCommKernelName("sm90_xmma_gemm_bf16bf16_bf16f32"));
}

// Three ranks, four all-reduces: each rank runs a 100 us gemm then the all-reduce (launched under
// record_param_comms); rank 2's gemm takes 150 us. Rank r's clock is shifted by r x 1 ms.
TEST(AnalyzeJob, AlignsClocksSplitsWaitAndNamesTheStraggler) {
  const std::string args = R"({"Collective name":"allreduce","dtype":"Float","In msg nelems":1024,)"
                           R"("Out msg nelems":1024,"Group size":3,"Process Group Name":"0"})";
  std::vector<test_models::Builder> b(3);
  std::vector<model::Trace*> traces;
  for (int r = 0; r < 3; ++r) {
    int64_t shift = r * 1'000'000, t = 0, gpu = 0;
    for (int i = 0; i < 4; ++i) {
      int64_t gemm = r == 2 ? 150'000 : 100'000;
      b[r].Launch("gemm", shift + t, 5'000, shift + gpu + 10'000, gemm);
      int64_t arrive = gpu + 10'000 + gemm;
      int64_t last = gpu + 10'000 + 150'000;  // rank 2's arrival: every rank's gpu is in step
      b[r].Op("record_param_comms", shift + t + 5'000, 6'000, args);
      b[r].Launch("ncclDevKernel_Generic", shift + t + 6'000, 4'000, shift + arrive,
                  last + 20'000 - arrive);
      gpu = last + 20'000;
      t = gpu;
    }
    traces.push_back(&b[r].Link());
  }
  std::vector<RankInput> in;
  for (int r = 0; r < 3; ++r) in.push_back({r, "rank" + std::to_string(r), traces[r]});
  JobReport rep = AnalyzeJob(in);
  ASSERT_EQ(rep.ranks.size(), 3u);
  EXPECT_EQ(rep.instances, 4u);
  EXPECT_EQ(rep.matched_by, "order within each process group and collective");
  for (int r = 0; r < 3; ++r) EXPECT_EQ(rep.ranks[r].offset_ns, r * 1'000'000) << r;
  // Ranks 0 and 1 wait 50 us at each of 4 instances; everyone transfers 20 us.
  EXPECT_EQ(rep.wait_ns, 2 * 4 * 50'000);
  EXPECT_EQ(rep.transfer_ns, 3 * 4 * 20'000);
  ASSERT_EQ(rep.collectives.size(), 1u);
  EXPECT_EQ(rep.collectives[0].bytes, 4096);
  EXPECT_EQ(rep.collectives[0].count, 4u);
  ASSERT_TRUE(rep.straggler.has_value());
  EXPECT_EQ(rep.straggler->rank, 2);
  EXPECT_EQ(rep.straggler->cost_ns, 4 * 50'000);
  ASSERT_FALSE(rep.straggler->causes.empty());
  EXPECT_EQ(rep.straggler->causes[0].what, "gemm");
  EXPECT_EQ(rep.straggler->causes[0].excess_ns, 4 * 50'000);
  ASSERT_FALSE(rep.findings.empty());
  EXPECT_EQ(rep.findings[0].rule, "rank-straggler");
  EXPECT_EQ(rep.findings[0].impact_ns, 4 * 50'000);
}

// Every rank runs aten::cat (60 us) before each all-reduce; rank 2's host also runs 150 us of
// Python first and its GPU waits for it, while ranks 0 and 1 launch far ahead of their GPUs. A
// cause is what rank 2 does beyond the others in the same phases of the program: the Python
// work, never aten::cat (before: "aten::cat +240 us", the others' cat ran before the windows).
TEST(AnalyzeJob, StragglerCausesCompareTheSameWorkWhereverTheHostRan) {
  const std::string args = R"({"Collective name":"allreduce","dtype":"Float","In msg nelems":1024,)"
                           R"("Out msg nelems":1024,"Group size":3,"Process Group Name":"0"})";
  const int64_t u = 1'000;
  std::vector<test_models::Builder> b(3);
  // `end`: the previous instance's end (all ranks' clocks without offset); ranks 0 and 1 run
  // the host side of a step while their GPUs wait in the step before's collective.
  int64_t end = 300 * u, before = 0;
  for (int i = 0; i < 4; ++i) {
    for (int r = 0; r < 3; ++r) {
      int64_t shift = r * 1'000'000'000LL;
      int64_t h = r == 2 ? end + 150 * u : i == 0 ? 0 : before + 150 * u;  // aten::cat's start
      if (r == 2) b[r].Op("slow_python", shift + end, 150 * u);
      b[r].Op("aten::cat", shift + h, 60 * u);
      int64_t gemm = r == 2 ? end + 225 * u : end + 1 * u;
      b[r].Launch("gemm", shift + h + 65 * u, 5 * u, shift + gemm, 100 * u);
      b[r].Op("record_param_comms", shift + h + 70 * u, 6 * u, args);
      int64_t arrive = gemm + 100 * u, done = end + 345 * u;
      b[r].Launch("ncclDevKernel_Generic", shift + h + 71 * u, 4 * u, shift + arrive,
                  done - arrive);
    }
    before = end;
    end += 345 * u;
  }
  std::vector<RankInput> in;
  for (int r = 0; r < 3; ++r) in.push_back({r, "rank" + std::to_string(r), &b[r].Link()});
  JobReport rep = AnalyzeJob(in);
  ASSERT_TRUE(rep.straggler.has_value());
  EXPECT_EQ(rep.straggler->rank, 2);
  ASSERT_FALSE(rep.straggler->causes.empty());
  EXPECT_EQ(rep.straggler->causes[0].what, "slow_python");
  EXPECT_EQ(rep.straggler->causes[0].excess_ns, 4 * 150 * u);
  for (const auto& c : rep.straggler->causes) EXPECT_NE(c.what, "aten::cat") << c.excess_ns;
}

// Rank 1's profiler opened 3 steps after the others' (its first 3 steps are not in its trace):
// the job view says so, with the ranks and the gap.
TEST(AnalyzeJob, SaysWhenTheRanksWindowsOpenApart) {
  std::vector<test_models::Builder> b(3);
  std::vector<model::Trace*> traces;
  for (int r = 0; r < 3; ++r) {
    int64_t gpu = 0;
    for (int i = 0; i < 6; ++i) {
      const std::string args = R"({"Collective name":"allreduce","dtype":"Float",)"
                               R"("In msg nelems":1024,"Out msg nelems":1024,"Group size":3,)"
                               R"("Process Group Name":"0","Seq":)" +
                               std::to_string(i) + "}";
      int64_t t = gpu;
      if (r != 1 || i >= 3) {
        b[r].Launch("gemm", t, 5'000, gpu + 10'000, 1'000'000);
        b[r].Op("record_param_comms", t + 5'000, 6'000, args);
        b[r].Launch("ncclDevKernel_Generic", t + 6'000, 4'000, gpu + 1'010'000, 20'000);
      }
      gpu += 1'030'000;
    }
    traces.push_back(&b[r].Link());
  }
  std::vector<RankInput> in;
  for (int r = 0; r < 3; ++r) in.push_back({r, "rank" + std::to_string(r), traces[r]});
  JobReport rep = AnalyzeJob(in);
  std::string notes;
  for (const auto& n : rep.notes) notes += n + "\n";
  EXPECT_NE(notes.find("profiling windows open 3.090 ms apart (rank 0 first, rank 1 last"),
            std::string::npos)
      << notes;
  // Windows that open together say nothing.
  std::vector<test_models::Builder> c(2);
  std::vector<RankInput> together;
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 3; ++i) {
      const std::string args =
          R"({"Collective name":"allreduce","Group size":2,"Seq":)" + std::to_string(i) + "}";
      c[r].Launch("gemm", i * 1'030'000, 5'000, i * 1'030'000 + 10'000, 1'000'000);
      c[r].Op("record_param_comms", i * 1'030'000 + 5'000, 6'000, args);
      c[r].Launch("ncclDevKernel_Generic", i * 1'030'000 + 6'000, 4'000, i * 1'030'000 + 1'010'000,
                  20'000);
    }
    together.push_back({r, "rank" + std::to_string(r), &c[r].Link()});
  }
  for (const auto& n : AnalyzeJob(together).notes) {
    EXPECT_EQ(n.find("profiling windows"), std::string::npos) << n;
  }
}

TEST(JobRules, EveryJobRuleSaysWhatItNeverFiresOn) {
  for (const auto& r : JobRules()) EXPECT_FALSE(r.limits.empty() || r.definition.empty()) << r.id;
}

}  // namespace
}  // namespace job_test
}  // namespace gpuscope::analysis
