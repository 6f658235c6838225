#pragma once
// GraphBuilder: analyze's second core - the window, its replay graph and critical path, the
// window's notes, then the rules' claim-free work (internal to analyze.cc).

#include <array>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "analysis/replay/replay_graph.h"
#include "analysis/stats/stats.h"
#include "analysis/steps/phase_summary.h"
#include "analysis/timeline/clock_check.h"
#include "analysis/timeline/health.h"
#include "analysis/work/kernel_categories.h"

namespace gpuscope::analysis::internal {

// What no rule needs (the recording's notes, the window's GPU time by category): made beside
// the rules, read once they are done.
struct WindowNotes {
  std::vector<HealthNote> health;
  std::vector<PhaseSummary> phases;
  ClockCheck clocks;
  std::vector<CategoryStat> categories;
};

class GraphBuilder;

// Joins the builder's second core when it goes (GraphBuilder::Join): held by the caller of After
// beside what the posted work reads, so that no exception leaves that work running on it.
class JoinOnExit {
 public:
  explicit JoinOnExit(GraphBuilder& g) : g_(g) {}
  ~JoinOnExit();
  JoinOnExit(const JoinOnExit&) = delete;
  JoinOnExit& operator=(const JoinOnExit&) = delete;

 private:
  GraphBuilder& g_;
};

// The window, then its replay graph and critical path (the unchanged replay, the one-time costs
// done before the window), then the window's notes (health, phases, clocks, categories), made on a
// second core (when there is one) beside what analyze does meanwhile: the attribution while the
// window is sought (it does not need the window), then the stalls, gaps and rules (which, like
// the graph and the notes, only read the trace). After the graph, the second core makes the
// rules' preparations (posted by After once the rules begin) before the notes: the first core
// asks for them during its rules, and needs the notes only after them. The notes are taken one
// at a time by whichever core is free: the first core, done with its rules, makes those the
// second has not begun, and waits only for the one it is making (on the 1 GB B200 trace, the
// second core's graph ends while the first is in the rules).
class GraphBuilder {
 public:
  GraphBuilder(const model::Trace& t, std::function<SteadyState()> seek,
               const CategoryRules& categories, bool background);
  ~GraphBuilder();  // an analysis that throws (out of memory) still waits for the builder
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;
  // The window, once sought (here, without a second core); rethrows what seeking it threw.
  SteadyState Window();
  // Claim-free work for the second core once the graph and the notes are done (the rules'
  // preparations), posted once the context exists; without a second core, not run (each rule
  // does its own on its turn).
  void After(std::function<void()> job);
  // Waits for the second core to end (what After posted done): before anything the posted work
  // reads goes, also when the analysis throws (After's caller holds a JoinOnExit).
  void Join();
  // The graph, once built (here, without a second core, on the window sought first), and the
  // posted work done; rethrows what seeking the window or building the graph threw.
  ReplayGraph* Get();
  // The unchanged replay with its critical path, and the recording's notes (after Get).
  ReplayResult& observed() { return observed_; }
  WindowNotes& notes() { return notes_; }

 private:
  void Close();      // no work will be posted after this (a thread still waiting for some ends)
  void RunPosted();  // the posted work, once posted (none: once closed)
  bool Posted();     // whether work is posted (or none will be): RunPosted would not wait
  void Seek();       // writes before the window is said to be ready, only read after
  void Build();
  // The window's notes (health, phases, clocks, categories), one at a time, by whichever core
  // takes the next: the second after the graph and its replay (and the rules' preparations,
  // once posted), the first in Get once its rules are done (next_note_ says which are begun;
  // the join hands them over). TakeNote: false once every note is taken.
  static constexpr size_t kNotes = 4;
  bool TakeNote();
  void MakeNote(size_t k);

  const model::Trace& t_;
  std::function<SteadyState()> seek_;
  SteadyState steady_;  // the thread's own: the analysis gets a copy (Window)
  WhatIf one_time_;
  bool sought_ = false;
  std::exception_ptr window_failed_;
  std::promise<void> window_ready_;
  std::future<void> found_;
  const CategoryRules& categories_;
  WindowNotes notes_;
  std::atomic<size_t> next_note_{0};
  std::array<std::exception_ptr, kNotes> note_failed_;  // each by the core that made the note
  std::optional<ReplayGraph> graph_;
  ReplayResult observed_;
  std::exception_ptr failed_;
  std::mutex mutex_;  // guards job_ and closed_
  std::condition_variable posted_;
  std::function<void()> job_;
  bool closed_ = false;
  std::thread thread_;  // joined by the destructor before the members it uses go
};

}  // namespace gpuscope::analysis::internal
