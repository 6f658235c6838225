// Handoffs between host threads in the replay: a thread that resumes after another thread's
// work and goes on at once waited for it; one that resumes and then works longer than it waited
// (a step that begins, then waits 10 ms in the data loader) was held by its own work, which a fix
// can remove.

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/replay/replay_graph.h"

namespace gpuscope::analysis {
namespace replay_handoff_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

TEST(ReplayHandoff, WorkAfterTheThreadResumedIsNotAHandoffDelay) {
  // Main thread: steps of 10.1 ms with 60 us between them; each waits 10 ms in the data loader,
  // then launches a 100 us kernel. A second thread (the autograd engine's) launches a kernel of
  // its own just before each step begins: the last thing another thread finished before the
  // main thread's next call.
  Builder b;
  model::Trace& raw = b.raw();
  const model::TrackId other = raw.InternTrack(model::TrackKind::kCpuThread, "1", "2");
  constexpr int kSteps = 6;
  constexpr int64_t kStep = 10'160 * us;
  for (int s = 0; s < kSteps; ++s) {
    const int64_t t0 = s * kStep;
    b.Step(s, t0, kStep - 60 * us);
    b.Annotation("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t0 + 10 * us,
                 10'000 * us);
    b.Launch("k", t0 + 10'020 * us, 5 * us, t0 + 10'030 * us, 100 * us);
    if (s > 0) {
      model::ApiRow a;
      a.start_ns = t0 - 30 * us, a.dur_ns = 20 * us, a.track = other;
      a.name = raw.strings.Intern("cudaLaunchKernel");
      raw.api.Append(a);
    }
  }
  model::Trace& t = b.Link();
  ReplayGraph g(t, 0, kSteps * kStep);
  const int64_t base = g.Replay(nullptr).window_ns;
  EXPECT_EQ(base, g.observed_window_ns());
  // Workers that keep ahead: the loader's time leaves the thread, and the steps shrink by it.
  WhatIf ahead;
  for (int s = 0; s < kSteps; ++s) {
    const int64_t at = s * kStep + 10 * us;
    ahead.host_scale.push_back({b.cpu_track(), at, at + 10'000 * us, 0.0});
  }
  EXPECT_GE(base - g.Replay(&ahead).window_ns, (kSteps - 1) * 9'900 * us);
}

}  // namespace
}  // namespace replay_handoff_test
}  // namespace gpuscope::analysis
