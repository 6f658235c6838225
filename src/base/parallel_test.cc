#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpuscope::base {
namespace parallel_test {  // this file's helpers, apart in a unity build
namespace {

TEST(RunJobs, RunsEveryJobOnceOnAnyNumberOfThreads) {
  for (int threads : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> runs(50);
    std::vector<std::function<void()>> jobs;
    for (size_t j = 0; j < runs.size(); ++j) jobs.push_back([&runs, j] { ++runs[j]; });
    RunJobs(jobs, threads);
    for (size_t j = 0; j < runs.size(); ++j) EXPECT_EQ(runs[j].load(), 1) << threads << " " << j;
  }
  RunJobs({}, 4);  // nothing to do: returns
}

TEST(RunJobs, AJobsExceptionReachesTheCallerAfterEveryThreadStopped) {
  for (int threads : {1, 2}) {
    std::atomic<int> done{0};
    std::vector<std::function<void()>> jobs = {[] { throw std::bad_alloc(); }};
    for (int j = 0; j < 20; ++j) {
      jobs.push_back([&done] {  // long enough to be running when the check below looks
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++done;
      });
    }
    EXPECT_THROW(RunJobs(jobs, threads), std::bad_alloc);
    // One thread stops at the throw; with two, the other stops after its current job. Nothing
    // runs once RunJobs has returned.
    const int after_return = done.load();
    if (threads == 1) {
      EXPECT_EQ(after_return, 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(done.load(), after_return);
  }
  EXPECT_GE(DefaultThreads(), 1);
  EXPECT_LE(DefaultThreads(2), 2);
}

}  // namespace
}  // namespace parallel_test
}  // namespace gpuscope::base
