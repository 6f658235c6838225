// PreparedWork (a rule's claim-free work, made once by whichever thread asks first) and analyze's
// use of it: the rules' preparations on the second core give the one-thread findings.

#include "analysis/findings/prepared_work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analysis/common/test_model_builder.h"
#include "analysis/findings/analyze.h"
#include "analysis/findings/analyze_test_util.h"

namespace gpuscope::analysis {
namespace prepared_work_test {  // this file's helpers, apart in a unity build
namespace {

using internal::PreparedWork;
using test_models::Builder;
using test_models::us;

struct Sum {
  int value = 0;
};
struct Other {
  std::string text;
};

TEST(PreparedWork, ThreadsThatAskAtOnceGetOneValueMadeOnce) {
  for (int round = 0; round < 50; ++round) {
    PreparedWork work;
    std::atomic<int> made{0};
    std::vector<const Sum*> seen(8, nullptr);
    std::vector<std::thread> threads;
    for (size_t k = 0; k < seen.size(); ++k) {
      threads.emplace_back([&, k] {
        seen[k] = &work.Get<Sum>([&] {
          ++made;
          return Sum{42};
        });
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(made.load(), 1);
    for (const Sum* s : seen) {
      ASSERT_EQ(s, seen[0]);
      EXPECT_EQ(s->value, 42);
    }
  }
}

TEST(PreparedWork, EachTypeHasItsOwnValue) {
  PreparedWork work;
  const Sum& a = work.Get<Sum>([] { return Sum{1}; });
  const Other& b = work.Get<Other>([] { return Other{"two"}; });
  EXPECT_EQ(a.value, 1);
  EXPECT_EQ(b.text, "two");
  // Asked again, the value made first, not a second make.
  EXPECT_EQ(work.Get<Sum>([] { return Sum{3}; }).value, 1);
  EXPECT_EQ(&work.Get<Other>([] { return Other{"four"}; }), &b);
}

TEST(PreparedWork, AMakeThatThrowsLeavesItUnmade) {
  PreparedWork work;
  EXPECT_THROW(work.Get<Sum>([]() -> Sum { throw std::runtime_error("out of memory"); }),
               std::runtime_error);
  EXPECT_EQ(work.Get<Sum>([] { return Sum{7}; }).value, 7);
}

// One thread's make throws while another waits for it: the waiting one makes it itself (the
// rule's turn after the second core's preparation failed).
TEST(PreparedWork, AThreadWaitingOnAMakeThatThrowsMakesItItself) {
  for (int round = 0; round < 50; ++round) {
    PreparedWork work;
    std::atomic<bool> making{false};
    std::atomic<bool> waiter_started{false};
    std::thread thrower([&] {
      try {
        work.Get<Sum>([&]() -> Sum {
          making = true;
          while (!waiter_started) std::this_thread::yield();
          throw std::runtime_error("out of memory");
        });
      } catch (const std::runtime_error&) {
      }
    });
    while (!making) std::this_thread::yield();
    int value = 0;
    std::thread waiter([&] {
      waiter_started = true;
      value = work.Get<Sum>([] { return Sum{9}; }).value;
    });
    thrower.join();
    waiter.join();
    EXPECT_EQ(value, 9);
  }
}

// Three kernels of different time per step, one instance ten times slower than its siblings:
// kernel-hotspot's ranking and kernel-outlier's slow groups are prepared on the second core
// (RuleInfo::prepare) or on the rule's own turn, the notes made by either core; either way the
// findings and notes are the one-thread ones.
TEST(PreparedWork, AnalyzeOnTwoThreadsGivesTheOneThreadFindings) {
  Builder b;
  for (int s = 0; s < 10; ++s) {
    const int64_t t0 = s * 1000 * us;
    b.Step(s, t0, 1000 * us);
    b.Launch("gemm", t0 + 1 * us, 4 * us, t0 + 10 * us, 300 * us);
    b.Launch("softmax", t0 + 6 * us, 4 * us, t0 + 320 * us, 150 * us);
    b.Launch("layernorm", t0 + 11 * us, 4 * us, t0 + 480 * us, (s == 7 ? 400 : 40) * us);
  }
  const model::Trace& t = b.Link();
  AnalyzeOptions one;
  one.threads = 1;
  one.min_impact_percent = 0;  // every finding listed, the outlier's too
  const AnalysisReport r1 = Analyze(t, one);
  const std::vector<const Finding*> hot = test_models::Rule(r1, "kernel-hotspot");
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_EQ(hot[0]->where.kernel, "gemm");
  const std::vector<const Finding*> slow = test_models::Rule(r1, "kernel-outlier");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0]->detail.find("1 of 10 instances"), std::string::npos) << slow[0]->detail;
  for (int round = 0; round < 20; ++round) {
    AnalyzeOptions two = one;
    two.threads = 2;
    const AnalysisReport r2 = Analyze(t, two);
    // The window's notes, each made by whichever core took it (GraphBuilder::TakeNote).
    ASSERT_EQ(r2.health.size(), r1.health.size());
    for (size_t i = 0; i < r1.health.size(); ++i) EXPECT_EQ(r2.health[i].id, r1.health[i].id);
    ASSERT_EQ(r2.summary.categories.size(), r1.summary.categories.size());
    for (size_t i = 0; i < r1.summary.categories.size(); ++i)
      EXPECT_EQ(r2.summary.categories[i].total_ns, r1.summary.categories[i].total_ns);
    EXPECT_EQ(r2.phases.size(), r1.phases.size());
    ASSERT_EQ(r2.clocks.devices.size(), r1.clocks.devices.size());
    for (size_t i = 0; i < r1.clocks.devices.size(); ++i)
      EXPECT_EQ(r2.clocks.devices[i].median_ns, r1.clocks.devices[i].median_ns);
    ASSERT_EQ(r2.findings.size(), r1.findings.size());
    for (size_t i = 0; i < r1.findings.size(); ++i) {
      EXPECT_EQ(r2.findings[i].rule, r1.findings[i].rule);
      EXPECT_EQ(r2.findings[i].detail, r1.findings[i].detail);
      EXPECT_EQ(r2.findings[i].where.kernel, r1.findings[i].where.kernel);
      EXPECT_EQ(r2.findings[i].impact_ns, r1.findings[i].impact_ns);
    }
  }
}

}  // namespace
}  // namespace prepared_work_test
}  // namespace gpuscope::analysis
