#pragma once
// RunJobs: runs independent jobs on up to `threads` threads (this one included), each thread
// taking the next job not yet taken, in the order given (put the longest first). When a job
// throws (out of memory), the others stop after their current job, and once every thread has
// stopped the exception is rethrown here (the first thread's, if several threw). A thread that
// cannot be started leaves its share to those that were.

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuscope::base {

// One thread per core, at most `cap` (the machines this runs on have 2 to 64 cores; past 8,
// the memory bandwidth, not the cores, bounds every parallel stage measured).
inline int DefaultThreads(unsigned cap = 8) {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, cap));
}

// What a `--threads` option asks for: its value, or 0 for one per core (DefaultThreads).
inline int ThreadsFor(int requested) { return requested > 0 ? requested : DefaultThreads(); }

inline void RunJobs(const std::vector<std::function<void()>>& jobs, int threads) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failed(static_cast<size_t>(std::max(threads, 1)));
  auto work = [&](size_t t) {
    try {
      for (size_t j; (j = next.fetch_add(1)) < jobs.size();) jobs[j]();
    } catch (...) {
      failed[t] = std::current_exception();
      next = jobs.size();  // the others stop after their current job
    }
  };
  std::vector<std::thread> helpers;
  const size_t n = std::min(failed.size(), jobs.size());
  try {
    for (size_t t = 1; t < n; ++t) helpers.emplace_back(work, t);
  } catch (const std::system_error&) {
    // No more threads here (a limit on threads or address space): the started ones and this
    // one take every job.
  }
  work(0);
  for (auto& h : helpers) h.join();
  for (auto& f : failed)
    if (f) std::rethrow_exception(f);
}

}  // namespace gpuscope::base
