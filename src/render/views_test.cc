// The command views render what the analyses computed; tested on results built by hand.

#include <gtest/gtest.h>

#include <string>

#include "analysis/common/test_model_builder.h"
#include "analysis/stats/stats.h"
#include "render/analyze_view.h"
#include "render/diff_view.h"
#include "render/help_view.h"
#include "render/python_place.h"
#include "render/stats_view.h"
#include "render/terms.h"

namespace gpuscope::render {
namespace {

analysis::AnalysisReport Report() {
  analysis::AnalysisReport r;
  r.steady.source = "the GPU-work span (no iterations)";
  r.summary.wall_ns = 2'000'000;
  r.summary.window_ns = 1'000'000;
  r.summary.verdict = "CPU-bound: the GPU waits for the host 90% of the steady state";
  analysis::Finding f;
  f.rule = "host-sync";
  f.severity = analysis::Severity::kHigh;
  f.title = "Host synchronizations inside the steady state";
  f.impact_ns = 250'000;
  f.impact_percent = 25;
  f.where = {"infer.py(12): step", "aten::item", "", "", ""};
  f.detail = "8 syncs";
  f.advice = "Keep the value on the device.";
  f.standalone_ns = 250'000;
  f.standalone_percent = 25;
  f.baseline_ns = 1'000'000;
  f.fixed_ns = 750'000;
  f.changes = "8 calls stop waiting for the GPU";
  f.evidence.push_back({1'500'000, 30'000, -1, "aten::item"});
  r.findings.push_back(f);
  return r;
}

TEST(AnalyzeView, TextShowsEachFindingWithItsCostPlaceAndFix) {
  model::Trace t;
  t.meta.format = "kineto";
  std::string text = AnalyzeText(t, Report(), {"trace.json", true, {}});
  EXPECT_NE(text.find("trace.json  (kineto)"), std::string::npos) << text;
  EXPECT_NE(text.find("1. [high] host-sync: Host synchronizations inside the steady state  saves "
                      "250.000 us (25.0%)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("where:    in `step`, defined at infer.py:12  >  aten::item"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fix:      Keep the value on the device."), std::string::npos) << text;
  EXPECT_EQ(text.find("edits:"), std::string::npos) << text;
  // --explain host-sync: the replayed windows and the fix's edits.
  std::string explained = AnalyzeText(t, Report(), {"trace.json", true, "host-sync"});
  EXPECT_NE(explained.find("replay:   window 1.000 ms unchanged, 750.000 us with this fix alone"),
            std::string::npos)
      << explained;
  EXPECT_NE(explained.find("edits:    8 calls stop waiting for the GPU"), std::string::npos)
      << explained;
}

TEST(AnalyzeView, APythonFrameIsSaidAsTheFunctionAndTheLineItIsDefinedAt) {
  // PyTorch names a frame by its def line (issue 56: "inference_slow.py(19): slow_activation"
  // pointed at the def, the loop is below it; "prog.py(0): <module>" at line 0).
  EXPECT_EQ(PythonPlace("inference_slow.py(19): slow_activation"),
            "in `slow_activation`, defined at inference_slow.py:19");
  EXPECT_EQ(PythonPlace("prog.py(0): <module>"), "module level of prog.py");
  EXPECT_EQ(PythonPlace("inference_slow.py(19): slow_activation", "inference_slow.py(27): main"),
            "in `slow_activation`, defined at inference_slow.py:19, called from `main`, defined at "
            "line 27");
  EXPECT_EQ(PythonPlace("lib/act.py(4): leaky", "train.py(0): <module>"),
            "in `leaky`, defined at lib/act.py:4, called from module level of train.py");
  EXPECT_EQ(PythonPlace("lib/act.py(4): leaky", "train.py(30): run"),
            "in `leaky`, defined at lib/act.py:4, called from `run`, defined at train.py:30");
  EXPECT_EQ(PythonPlace("step 3"), "step 3");  // a user range: as it is
  EXPECT_EQ(PythonPlace("nn.Module: Linear_0"), "nn.Module: Linear_0");
}

TEST(AnalyzeView, TheCallerOfAFindingsFrameIsALineOfItsOwnUnderWhere) {
  analysis::AnalysisReport r = Report();
  r.findings[0].where.caller = "infer.py(30): main";
  const std::string text = FindingsText(r.findings, 0, 100, false, "");
  EXPECT_NE(text.find("where:    in `step`, defined at infer.py:12  >  aten::item\n"
                      "              called from `main`, defined at line 30\n"),
            std::string::npos)
      << text;
}

TEST(AnalyzeView, AFindingShowsWhatItsFixSavesAloneAndAfterTheFixesPricedBeforeIt) {
  analysis::Finding f;
  f.severity = analysis::Severity::kMedium;
  f.standalone_ns = 95'000'000, f.standalone_percent = 9.0, f.impact_ns = 0;
  f.priced_after = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(SavingText(f), "  saves 95.000 ms (9.0%) alone; 0 after 1-6");
  f.impact_ns = 2'000'000, f.priced_after = {1, 3, 4};
  EXPECT_EQ(SavingText(f), "  saves 95.000 ms (9.0%) alone; 2.000 ms after 1, 3, 4");
  f.impact_ns = f.standalone_ns;
  EXPECT_EQ(SavingText(f), "  saves 95.000 ms (9.0%)");
  f.severity = analysis::Severity::kInfo;
  EXPECT_EQ(SavingText(f), "");
}

TEST(AnalyzeView, CsvHasOneRowPerFinding) {
  EXPECT_EQ(AnalyzeCsv(Report()),
            "rule,severity,title,impact_ns,impact_percent,python,op,kernel,detail\n"
            "host-sync,high,Host synchronizations inside the steady state,250000,25.0000,"
            "infer.py(12): step,aten::item,,8 syncs\n");
}

TEST(StatsView, ACpuOnlyTraceSaysInOneLineThatItHasNoGpuWork) {
  // Issue 56: not three empty GPU tables first, one line, then the CPU ops.
  analysis::test_models::Builder cpu;
  cpu.Op("aten::addmm", 0, 500'000);
  cpu.Op("aten::relu", 600'000, 100'000);
  model::Trace& t = cpu.Link();
  std::string text = StatsText(t, analysis::ComputeStats(t, {}), StatsView{}, 100);
  EXPECT_NE(text.find("No GPU work recorded: no kernels, copies or runtime API calls"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("GPU kernels:"), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU memory operations:"), std::string::npos) << text;
  EXPECT_EQ(text.find("Runtime / driver API calls:"), std::string::npos) << text;
  EXPECT_LT(text.find("No GPU work recorded"), text.find("CPU ops:")) << text;
  // One table asked for by name is shown, empty or not; a trace with GPU work has its tables.
  StatsView kernels_only;
  kernels_only.by = "kernels";
  EXPECT_NE(StatsText(t, analysis::ComputeStats(t, {}), kernels_only, 100).find("GPU kernels:"),
            std::string::npos);
  analysis::test_models::Builder gpu;
  gpu.Op("aten::addmm", 0, 500'000);
  gpu.Launch("gemm", 10'000, 5'000, 20'000, 100'000);
  model::Trace& g = gpu.Link();
  std::string with_gpu = StatsText(g, analysis::ComputeStats(g, {}), StatsView{}, 100);
  EXPECT_EQ(with_gpu.find("No GPU work recorded"), std::string::npos) << with_gpu;
  EXPECT_NE(with_gpu.find("GPU kernels:"), std::string::npos) << with_gpu;
}

TEST(DiffView, CsvHasOneHeaderForEveryTable) {
  analysis::DiffReport r;
  r.kernels.push_back({"gemm", "changed", 2, 1, 200, 100, -1, -1});
  r.api.push_back({"cudaLaunchKernel", "removed", 5, 0, 50, 0, -1, -1});
  EXPECT_EQ(DiffCsv(r),
            "table,name,status,calls_before,calls_after,total_ns_before,total_ns_after\n"
            "kernels,gemm,changed,2,1,200,100\n"
            "api,cudaLaunchKernel,removed,5,0,50,0\n");
}

TEST(HelpView, FormatsAsJsonAndTable) {
  std::vector<FormatEntry> f = {{true, "kineto", "", "PyTorch profiler JSON"},
                                {false, "rpd", ".rpd", "rocmProfileData"}};
  std::string json = FormatsHelp(f, "json");
  EXPECT_NE(json.find("\"direction\": \"write\""), std::string::npos) << json;
  std::string text = FormatsHelp(f, "table");
  EXPECT_LT(text.find("gpuscope reads"), text.find("kineto"));
  EXPECT_LT(text.find("gpuscope convert writes"), text.find(".rpd"));
  EXPECT_NE(FindingsHelp("markdown").find("## `host-sync`"), std::string::npos);
}

}  // namespace
// Every verdict kind the JSON gives ("verdict_kind") is a word `help terms` explains.
TEST(Views, EveryVerdictKindIsExplainedInTerms) {
  std::string terms = TermsHelp("csv");
  for (analysis::VerdictKind k :
       {analysis::VerdictKind::kGpuBound, analysis::VerdictKind::kCpuBound,
        analysis::VerdictKind::kMixed, analysis::VerdictKind::kCopyBound,
        analysis::VerdictKind::kCpuOnly, analysis::VerdictKind::kNoGpuWork,
        analysis::VerdictKind::kCopiesOnly, analysis::VerdictKind::kNoHostEvent,
        analysis::VerdictKind::kIncompleteTrace, analysis::VerdictKind::kOnePass}) {
    EXPECT_NE(terms.find("verdict," + std::string(analysis::VerdictKindName(k)) + ","),
              std::string::npos)
        << analysis::VerdictKindName(k);
  }
}

}  // namespace gpuscope::render
