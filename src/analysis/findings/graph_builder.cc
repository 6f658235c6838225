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
      // The rules' preparations first once they are posted (the first core is in the rules and
      // will ask for them), the notes while none is posted and after: a note at a time, so that
      // the first core, done with its rules, takes the notes this one has not begun.
      bool prepared = false;
      while (true) {
        if (!prepared && Posted()) {
          RunPosted();
          prepared = true;
        } else if (!TakeNote()) {
          break;
        }
      }
      if (!prepared) RunPosted();
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
  const bool background = thread_.joinable();
  if (background) {
    found_.wait();
  } else {
    if (!sought_) Seek();
    if (!window_failed_ && !graph_ && !failed_) Build();
  }
  // The notes no core has begun (the second may still be in the graph, its replay or a note):
  // the first core's rules are done, and it would wait.
  if (!window_failed_)
    while (TakeNote()) {
    }
  if (background) Join();
  if (window_failed_) std::rethrow_exception(window_failed_);
  if (failed_) std::rethrow_exception(failed_);  // out of memory: one line in main
  for (const std::exception_ptr& e : note_failed_)
    if (e) std::rethrow_exception(e);
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
  } catch (...) {
    failed_ = std::current_exception();
  }
}

bool GraphBuilder::Posted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_ != nullptr || closed_;
}

bool GraphBuilder::TakeNote() {
  const size_t k = next_note_.fetch_add(1);
  if (k >= kNotes) return false;
  try {
    MakeNote(k);
  } catch (...) {  // out of memory: rethrown by Get, on the first core
    note_failed_[k] = std::current_exception();
  }
  return true;
}

void GraphBuilder::MakeNote(size_t k) {
  base::StageTimer timer;
  // The longest first (on the 1 GB trace: clocks 20 ms, health 13, phases 7, categories 1), so
  // that the core that comes last waits for a short one.
  switch (k) {
    case 0:
      notes_.clocks = CheckClocks(t_);
      timer.Lap("analyze: note: clocks");
      break;
    case 1:
      notes_.health = CheckHealth(t_, steady_);
      timer.Lap("analyze: note: health");
      break;
    case 2:
      notes_.phases = SummarisePhases(t_, steady_);
      timer.Lap("analyze: note: phases");
      break;
    default: {
      StatsOptions in_window;
      in_window.window_start = steady_.start_ns, in_window.window_end = steady_.end_ns;
      notes_.categories = GpuTimeByCategory(t_, in_window, categories_);
      timer.Lap("analyze: note: categories");
    }
  }
}

}  // namespace gpuscope::analysis::internal
