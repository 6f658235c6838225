// The capture matcher on hand-built models: exact, reordered, missing and repeated kernels, the
// capture chosen by grid/block, and the fallback to the graph launch's own frame; a kernel's
// site by ids (Attributor::KernelSite) names what Attributor::Kernel names; a frame's caller is
// the user frame that calls it most often (Attributor::Callers).

#include "analysis/attribution/graph_attribution.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/common/test_model_builder.h"

namespace gpuscope::analysis {
namespace graph_attribution_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

struct Launch {
  std::string kernel, op;
  uint32_t grid = 1;
};

// A capture trace: between hipStreamBeginCapture and hipStreamEndCapture, each launch call sits
// in its op and names its kernel; none of them runs.
void Capture(Builder& b, const std::vector<Launch>& launches, int64_t t0, uint64_t corr0) {
  b.Api("hipStreamBeginCapture", t0, 1 * us, corr0);
  int64_t t = t0 + 10 * us;
  uint64_t corr = corr0 + 1;
  for (const auto& l : launches) {
    b.Op(l.op, t, 8 * us);
    b.Api("hipLaunchKernel", t + 1 * us, 5 * us, corr);
    model::LaunchArgRow a;
    a.correlation = corr++;
    a.kernel = b.raw().strings.Intern(l.kernel);
    a.grid = {l.grid, 1, 1}, a.block = {256, 1, 1};
    b.raw().launch_args.push_back(a);
    t += 10 * us;
  }
  b.Api("hipStreamEndCapture", t, 1 * us, corr);
}

// An execution trace: one graph launch replaying `kernels` in order, inside an op.
model::Trace& Replay(Builder& b, const std::vector<std::pair<std::string, uint32_t>>& kernels) {
  b.Frame("serve.py(40): run_step", 0, 1000 * us);
  b.Api("hipGraphLaunch", 10 * us, 20 * us, 500);
  int64_t t = 40 * us;
  for (const auto& [name, grid] : kernels) {
    model::KernelRow r;
    r.start_ns = t, r.dur_ns = 5 * us, r.name = b.raw().strings.Intern(name);
    r.track = b.gpu_track(), r.correlation = 500, r.device = 0;
    r.grid = {grid, 1, 1}, r.block = {256, 1, 1};
    b.raw().kernels.Append(r);
    t += 6 * us;
  }
  return b.Link();
}

std::vector<std::string> OpsOf(const model::Trace& t, const GraphAttribution& g) {
  Attributor at(t);
  at.SetGraphs(&g);
  std::vector<std::string> out;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    Where w = at.Kernel(k);
    out.push_back(w.op.empty() ? "?" + w.python : w.op);
    // The site by ids names what Kernel() names (kernel-hotspot groups by it).
    const Where s = at.SiteWhere(at.KernelSite(k));
    EXPECT_EQ(s.python, w.python) << k;
    EXPECT_EQ(s.op, w.op) << k;
    EXPECT_EQ(s.graph, w.graph) << k;
  }
  return out;
}

std::vector<CapturedGraph> Captured(const std::vector<Launch>& launches) {
  Builder c;
  Capture(c, launches, 0, 1);
  return FindCapturedGraphs(c.Link(), "cap.json");
}

const std::vector<Launch> kLayer = {
    {"qkv", "aten::mm"}, {"attn", "vllm::attention"}, {"mlp", "aten::mm#2"}, {"norm", "rmsnorm"}};

TEST(GraphAttribution, FindsCapturedLaunchesWithTheirOps) {
  auto graphs = Captured(kLayer);
  ASSERT_EQ(graphs.size(), 1u);
  ASSERT_EQ(graphs[0].launches.size(), 4u);
  EXPECT_EQ(graphs[0].launches[1].kernel, "attn");
  EXPECT_EQ(graphs[0].launches[1].where.op, "vllm::attention");
  EXPECT_EQ(graphs[0].origin, "cap.json, capture 1");
}

TEST(GraphAttribution, ExactReplayIsFullyMatched) {
  Builder b;
  model::Trace& t = Replay(b, {{"qkv", 1}, {"attn", 1}, {"mlp", 1}, {"norm", 1}});
  Attributor at(t);
  GraphAttribution g = AttributeGraphKernels(t, at, Captured(kLayer));
  EXPECT_EQ(g.graph_kernels, 4u);
  EXPECT_EQ(g.matched, 4u);
  EXPECT_EQ(OpsOf(t, g),
            (std::vector<std::string>{"aten::mm", "vllm::attention", "aten::mm#2", "rmsnorm"}));
  EXPECT_EQ(g.Summary(),
            "4 of 4 graph kernels (100.0%) matched to 1 captured graph, from 1 graph launch");
}

TEST(GraphAttribution, ReorderedKernelsKeepTheLongestCommonOrder) {
  Builder b;
  model::Trace& t = Replay(b, {{"qkv", 1}, {"mlp", 1}, {"attn", 1}, {"norm", 1}});
  Attributor at(t);
  GraphAttribution g = AttributeGraphKernels(t, at, Captured(kLayer));
  EXPECT_EQ(g.matched, 3u);
  auto ops = OpsOf(t, g);
  EXPECT_EQ(ops[0], "aten::mm");
  EXPECT_EQ(ops[3], "rmsnorm");
  // The one left over is attributed to the frame that called the graph launch, marked.
  int fallback = 0;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    Attributor a2(t);
    a2.SetGraphs(&g);
    Where w = a2.Kernel(k);
    if (w.graph.find("no captured launch matched") != std::string::npos) {
      ++fallback;
      EXPECT_EQ(w.python, "serve.py(40): run_step");
    }
  }
  EXPECT_EQ(fallback, 1);
}

TEST(GraphAttribution, MissingAndRepeatedKernels) {
  Builder b;  // "attn" of the second layer did not run (e.g. a conditional node)
  std::vector<Launch> two_layers = {{"qkv", "L0.mm"}, {"attn", "L0.attn"}, {"mlp", "L0.mlp"},
                                    {"qkv", "L1.mm"}, {"attn", "L1.attn"}, {"mlp", "L1.mlp"}};
  model::Trace& t = Replay(b, {{"qkv", 1}, {"attn", 1}, {"mlp", 1}, {"qkv", 1}, {"mlp", 1}});
  Attributor at(t);
  GraphAttribution g = AttributeGraphKernels(t, at, Captured(two_layers));
  EXPECT_EQ(g.matched, 5u);
  EXPECT_EQ(OpsOf(t, g),
            (std::vector<std::string>{"L0.mm", "L0.attn", "L0.mlp", "L1.mm", "L1.mlp"}));
}

TEST(GraphAttribution, TheCaptureWithTheSameLaunchShapesWins) {
  // Two captures of the same kernels for batch sizes 8 and 32 (different grids).
  Builder c;
  std::vector<Launch> bs8 = {{"qkv", "bs8.mm", 8}, {"attn", "bs8.attn", 8}};
  std::vector<Launch> bs32 = {{"qkv", "bs32.mm", 32}, {"attn", "bs32.attn", 32}};
  Capture(c, bs8, 0, 1);
  Capture(c, bs32, 1000 * us, 100);
  auto graphs = FindCapturedGraphs(c.Link(), "cap.json");
  ASSERT_EQ(graphs.size(), 2u);
  Builder b;
  model::Trace& t = Replay(b, {{"qkv", 32}, {"attn", 32}});
  Attributor at(t);
  GraphAttribution g = AttributeGraphKernels(t, at, graphs);
  EXPECT_EQ(OpsOf(t, g), (std::vector<std::string>{"bs32.mm", "bs32.attn"}));
}

TEST(GraphAttribution, WithoutACaptureKernelsGoToTheGraphLaunchFrame) {
  Builder b;
  model::Trace& t = Replay(b, {{"qkv", 1}, {"attn", 1}});
  Attributor at(t);
  GraphAttribution g = AttributeGraphKernels(t, at, {});
  EXPECT_EQ(g.matched, 0u);
  EXPECT_EQ(g.graph_kernels, 2u);
  at.SetGraphs(&g);
  Where w = at.Kernel(1);
  EXPECT_EQ(w.python, "serve.py(40): run_step");
  EXPECT_EQ(w.kernel, "attn");
  EXPECT_EQ(w.graph, "in graph (hipGraphLaunch, no captured launch matched)");
}

// Three calls of step from main, one from helper: main is step's caller. An empty name and one
// the trace does not hold have none; a name asked twice gets its answer twice.
TEST(Attributor, ACallerIsTheUserFrameCallingMostOften) {
  Builder b;
  b.Frame("train.py(3): main", 0, 1000 * us);
  for (int k = 0; k < 3; ++k) b.Frame("train.py(9): step", (10 + 100 * k) * us, 50 * us);
  b.Frame("other.py(2): helper", 2000 * us, 1000 * us);
  b.Frame("train.py(9): step", 2100 * us, 50 * us);
  const model::Trace& t = b.Link();
  Attributor at(t);
  EXPECT_EQ(at.Callers({"train.py(9): step", "", "absent.py(1): x", "train.py(9): step"}),
            (std::vector<std::string>{"train.py(3): main", "", "", "train.py(3): main"}));
}

}  // namespace
}  // namespace graph_attribution_test
}  // namespace gpuscope::analysis
