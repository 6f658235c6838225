// One-time costs on hand-built models: each kind of part, and what is not one.

#include "analysis/steps/one_time.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "analysis/steps/steady_state.h"

namespace gpuscope::analysis {
namespace {

using test_models::Builder;
using test_models::us;

bool Has(const OneTime& o, std::string_view what) {
  for (const auto& p : o.parts)
    if (p.what == what) return true;
  return false;
}

TEST(OneTime, TorchScriptFirstRunIsTheHostPauseBeforeTheScriptedCall) {
  Builder b;
  b.Launch("k0", 0, 5 * us, 10 * us, 5 * us);
  // 300 ms without any event on the thread, then the scripted function's first call.
  b.Op("forward", 300'000 * us, 1'000 * us);
  b.Op("fallback_function", 300'010 * us, 980 * us);
  b.Launch("k1", 300'020 * us, 5 * us, 300'030 * us, 900 * us);
  const model::Trace& t = b.Link();
  OneTime o = FindOneTime(t, 0, 301'000 * us, true);
  ASSERT_TRUE(Has(o, "TorchScript first run")) << o.Text();
  // From the thread's last event (the first launch call's end) to the call's first event inside.
  EXPECT_EQ(o.spans.front(), std::make_pair(5 * us, 300'010 * us));
  EXPECT_NE(o.Text().find("TorchScript first run"), std::string::npos) << o.Text();
  // Without the profiling executor's fallback_function, a pause is the program's own.
  Builder plain;
  plain.Launch("k0", 0, 5 * us, 10 * us, 5 * us);
  plain.Op("forward", 300'000 * us, 1'000 * us);
  plain.Op("aten::mm", 300'010 * us, 980 * us);
  EXPECT_TRUE(FindOneTime(plain.Link(), 0, 301'000 * us, true).empty());
}

TEST(OneTime, AnOpsFirstCallFarSlowerThanItsOtherCallsIsSetUp) {
  auto model = [](bool waits) {
    auto b = std::make_unique<Builder>();
    // cudnn_convolution's first call per shape sets up (2 ms); later calls take 40 us.
    b->Op("aten::conv2d", 0, 2'100 * us, "A");
    b->Op("aten::cudnn_convolution", 10 * us, 2'000 * us, "A");
    if (waits) b->Api("cudaStreamSynchronize", 20 * us, 1'900 * us, 0);
    for (int k = 0; k < 5; ++k) {
      b->Op("aten::conv2d", (3'000 + k * 100) * us, 50 * us, "A");
      b->Op("aten::cudnn_convolution", (3'000 + k * 100 + 5) * us, 40 * us, "A");
    }
    b->Op("aten::add", 4'000 * us, 3'000 * us, "B");  // one call alone: nothing to compare with
    return b;
  };
  auto set_up = model(false);
  OneTime o = FindOneTime(set_up->Link(), 0, 10'000 * us, true);
  ASSERT_EQ(o.parts.size(), 1u) << o.Text();
  EXPECT_EQ(o.parts[0].op, "aten::cudnn_convolution");  // the innermost slow first call
  EXPECT_EQ(o.ns, 2'000 * us);
  // A first call that waits for the GPU is the GPU's time, not set-up.
  auto waiting = model(true);
  EXPECT_TRUE(FindOneTime(waiting->Link(), 0, 10'000 * us, true).empty());
  // With steps, the leading slow steps are out already: first calls are not looked for.
  auto stepped = model(false);
  EXPECT_TRUE(FindOneTime(stepped->Link(), 0, 10'000 * us, false).empty());
}

TEST(OneTime, ModuleLoadingLaunchAndStartUpBeforeTheFirstGpuCall) {
  Builder b;
  b.Launch("k", 0, 5 * us, 10 * us, 5 * us);
  b.Launch("slow", 100 * us, 600'000 * us, 600'110 * us, 5 * us);  // loads its module
  for (int k = 0; k < 20; ++k) {
    int64_t t0 = (600'200 + k * 10) * us;
    b.Launch(k % 2 ? "k" : "slow", t0, 5 * us, t0 + 10 * us, 5 * us);
  }
  const model::Trace& t = b.Link();
  OneTime o = FindOneTime(t, 0, 601'000 * us, false);  // with steps too
  ASSERT_EQ(o.parts.size(), 1u) << o.Text();
  EXPECT_EQ(o.parts[0].what, "module loading");
  EXPECT_NE(o.parts[0].first_kernel, SIZE_MAX);
  EXPECT_EQ(o.Text(), "600.000 ms of module loading");
  // No GPU op recorded: the host's work before its first GPU call is start-up.
  Builder cpu_only;
  cpu_only.Op("aten::uniform_", 0, 2'000'000 * us);
  cpu_only.Api("cudaMemcpyAsync", 2'000'100 * us, 10 * us, 0);
  cpu_only.Op("aten::relu", 2'000'200 * us, 10 * us);
  OneTime s = FindOneTime(cpu_only.Link(), 0, 2'000'300 * us, true);
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.parts[0].what, "start-up before the first GPU call");
  EXPECT_TRUE(s.Covers(1'000'000 * us));
  EXPECT_FALSE(s.Covers(2'000'200 * us));
}

TEST(OneTime, TheSteadyStateSaysWhatItsWindowLeftOut) {
  Builder b;
  b.Launch("k", 0, 5 * us, 10 * us, 5 * us);
  b.Launch("slow", 100 * us, 600'000 * us, 600'110 * us, 50 * us);
  for (int k = 0; k < 20; ++k) {  // ordinary launches: the median launch call
    int64_t t0 = (600'200 + k * 10) * us;
    b.Launch("k", t0, 5 * us, t0 + 10 * us, 5 * us);
  }
  SteadyState s = FindSteadyState(b.Link());
  EXPECT_EQ(s.one_time.ns, 600'000 * us);
  EXPECT_EQ(s.steady_ns(), s.window_ns() - 600'000 * us);
  EXPECT_NE(s.WindowText().find("steady part: "), std::string::npos) << s.WindowText();
  EXPECT_NE(s.WindowText().find("after 600.000 ms of module loading"), std::string::npos)
      << s.WindowText();
}

TEST(OneTime, AnEarlyKernelHeldByWorkTheTraceLacksIsTheRecordings) {
  // SGLang decode: the first kernel runs at once, then a stream waits on an event recorded
  // outside the trace: the kernels launched next start 400 ms later on a GPU that stayed idle.
  // Later kernels start 10 us after their launch. The wait is the recording's part.
  Builder b;
  b.Launch("k0", 0, 5 * us, 10 * us, 5 * us);
  for (int k = 1; k < 4; ++k)
    b.Launch("held", k * 50 * us, 5 * us, 400'000 * us + k * 10 * us, 5 * us);
  for (int k = 0; k < 30; ++k) {
    const int64_t at = 401'000 * us + k * 100 * us;
    b.Launch("k", at, 5 * us, at + 10 * us, 50 * us);
  }
  const model::Trace& t = b.Link();
  OneTime o = FindOneTime(t, 0, 404'100 * us, true);
  ASSERT_FALSE(o.parts.empty()) << o.Text();
  EXPECT_TRUE(o.parts.front().before_trace);
  EXPECT_NEAR(static_cast<double>(o.ns), 400'000.0 * us, 100.0 * us) << o.Text();
}

TEST(OneTime, AWaitWithNoLaterLaunchToCompareIsNotTakenForTheRecordings) {
  // A vLLM decode step on ROCm: every op is launched in the first ms and starts 6-8 ms later; no
  // op is launched after the first ran, so the device's usual wait is unknown and clocks that
  // disagree cannot be told from unseen work: nothing is left out (the clock check says so).
  Builder b;
  for (int k = 0; k < 40; ++k)
    b.Launch("k", k * 20 * us, 5 * us, 7'800 * us + k * 30 * us, 25 * us);
  const model::Trace& t = b.Link();
  OneTime o = FindOneTime(t, 0, 10'000 * us, true);
  for (const auto& p : o.parts) EXPECT_FALSE(p.before_trace) << o.Text();
}

TEST(OneTime, LaunchesHeldByAFullLaunchQueueAreNoModuleLoading) {
  // Launch calls of 3 ms, each kernel starting 400 ms after its call returned (nsys's "command
  // buffer full": the queue ahead of it is long): back-pressure of the steady state, not the
  // first launch loading its module.
  Builder b;
  int64_t gpu = 10 * us;
  for (int k = 0; k < 200; ++k) {
    const int64_t at = k * 3'010 * us;
    const bool slow = k % 10 == 0;
    b.Launch(slow ? "big_" + std::to_string(k) : "k", at, slow ? 3'000 * us : 5 * us,
             std::max(gpu, at + 400'000 * us), 3'000 * us);
    gpu = std::max(gpu, at + 400'000 * us) + 3'000 * us;
  }
  const model::Trace& t = b.Link();
  OneTime o = FindOneTime(t, 0, 610'000 * us, false);
  EXPECT_FALSE(Has(o, "module loading")) << o.Text();
}

}  // namespace
}  // namespace gpuscope::analysis

namespace gpuscope::analysis {
namespace {

TEST(OneTime, EveryJitCompileOfAOnePassRunIsOneTime) {
  // nvFuser compiles each new fusion under the same range name: in a one-pass run, each of the
  // three compiles (300, 200, 100 ms) is one-time; in a stepped run only a first one far longer
  // than the others (a compile in every step is the steady state's).
  auto run = []() {
    auto b = std::make_unique<Builder>();
    int64_t at = 0;
    for (int64_t ms : {300, 200, 100}) {
      b->Annotation("FusionKernelRuntime::compileFusionParallel", at, ms * 1000 * us);
      b->Launch("fusion" + std::to_string(ms), at + ms * 1000 * us + 10 * us, 5 * us,
                at + ms * 1000 * us + 20 * us, 50 * us);
      at += ms * 1000 * us + 100 * us;
    }
    return b;
  };
  auto one = run();
  OneTime o = FindOneTime(one->Link(), 0, 700'000 * us, true);
  int64_t compiled = 0;
  for (const auto& p : o.parts)
    if (p.what == "compilation / autotuning") compiled += p.end_ns - p.start_ns;
  EXPECT_EQ(compiled, 600'000 * us) << o.Text();
  auto stepped = run();
  OneTime s = FindOneTime(stepped->Link(), 0, 700'000 * us, false);
  int64_t in_steps = 0;
  for (const auto& p : s.parts)
    if (p.what == "compilation / autotuning") in_steps += p.end_ns - p.start_ns;
  EXPECT_EQ(in_steps, 0) << s.Text();
}

}  // namespace
}  // namespace gpuscope::analysis
