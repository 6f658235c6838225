#include "analysis/findings/graph_builder.h"

#include <utility>

#include "analysis/findings/context.h"
#include "base/stage_timer.h"

namespace gpuscope::analysis::internal {

GraphBuilder::GraphBuilder(const model::Trace& t, std::function<SteadyState()> seek,
                           const CategoryRules& categories, bool background)
    : t_(t), seek_(std::move(seek)), found_(window_ready_.get_future()), categories_(categories) {
  if (background)
    thread_ = std::thread([this] {
      Seek();
      if (window_failed_) return;
      Build();
      RunPosted();
    });
}

GraphBuilder::~GraphBuilder() { Join(); }

SteadyState GraphBuilder::Window() {
  if (thread_.joinable())
    found_.wait();
  else if (!sought_)
    Seek();
  if (window_failed_) std::rethrow_exception(window_failed_);
  return steady_;
}

void GraphBuilder::After(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
  }
  posted_.notify_one();
}

JoinOnExit::~JoinOnExit() { g_.Join(); }

void GraphBuilder::Join() {
  Close();
  if (thread_.joinable()) thread_.join();
}

ReplayGraph* GraphBuilder::Get() {
  if (thread_.joinable()) {
    // The notes, here when the second core has not begun them (it is still in the graph or
    // its replay): the first core's rules are done, and it would wait.
    found_.wait();
    if (!window_failed_ && !notes_taken_.exchange(true)) MakeNotes();
    Join();
  } else {
    if (!sought_) Seek();
    if (!window_failed_ && !graph_ && !failed_) Build();
  }
  if (window_failed_) std::rethrow_exception(window_failed_);
  if (failed_) std::rethrow_exception(failed_);  // out of memory: one line in main
  return &*graph_;
}

void GraphBuilder::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  posted_.notify_one();
}

// What the posted work throws is dropped: it is claim-free work that the rule asking for it does
// again, and reports the failure of, on its turn.
void GraphBuilder::RunPosted() {
  std::function<void()> job;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    posted_.wait(lock, [this] { return job_ || closed_; });
    job = std::move(job_);
  }
  try {
    if (job) job();
  } catch (...) {
  }
}

void GraphBuilder::Seek() {
  sought_ = true;
  try {
    steady_ = seek_();
    one_time_ = Context::OneTimeFixOf(steady_);
  } catch (...) {
    window_failed_ = std::current_exception();
  }
  window_ready_.set_value();
}

void GraphBuilder::Build() {
  try {
    graph_.emplace(t_, steady_.start_ns, steady_.end_ns);
    // A module-loading launch call is warm-up's, not the steady path's.
    observed_ = graph_->Replay(one_time_.empty() ? nullptr : &one_time_, true);
    if (!notes_taken_.exchange(true)) MakeNotes();
  } catch (...) {
    failed_ = std::current_exception();
  }
}

void GraphBuilder::MakeNotes() {
  base::StageTimer timer;
  notes_.health = CheckHealth(t_, steady_);
  notes_.phases = SummarisePhases(t_, steady_);
  notes_.clocks = CheckClocks(t_);
  StatsOptions in_window;
  in_window.window_start = steady_.start_ns, in_window.window_end = steady_.end_ns;
  notes_.categories = GpuTimeByCategory(t_, in_window, categories_);
  timer.Lap("analyze: health, phases, clocks, categories (by the core free first)");
}

}  // namespace gpuscope::analysis::internal
