// `gpuscope analyze TRACE`: the ranked findings with their measured cost, where they come from
// and the fix; text report, JSON or CSV.

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/findings/analyze.h"
#include "analysis/findings/registry.h"
#include "analysis/work/device_peaks.h"
#include "base/text.h"
#include "cli/commands.h"
#include "render/analyze_view.h"
#include "session/job_load.h"
#include "session/load.h"
#include "session/outputs.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

struct AnalyzeArgs {
  AnalyzeRequest request;
  std::vector<double> rule_options;  // one per option of the rules' registry, in its order
};

}  // namespace

void PrintAnalyzeReport(const model::Trace& trace, const std::string& path, bool full_names) {
  std::fputs(
      FitTerminal(render::AnalyzeText(trace, analysis::Analyze(trace), {path, full_names, {}}),
                  full_names)
          .c_str(),
      stdout);
}

CommandBody AddAnalyzeCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<AnalyzeArgs>();
  app.add_option("trace", a->request.path, kTraceHelp)->required();
  AddFormatOption(app, &a->request.format);
  app.add_flag("--full-names", a->request.full_names,
               "Show names whole instead of fitting them to the terminal");
  std::vector<std::string> ids;
  for (const auto& rule : analysis::Rules()) ids.emplace_back(rule.id);
  app.add_option("--explain", a->request.explain,
                 "How the findings of this rule were priced: the replayed window without and "
                 "with the fix, and its edits")
      ->check(OneOf(ids));
  auto opts = std::make_shared<analysis::AnalyzeOptions>();
  // Every rule's thresholds, as its registry entry declares them.
  size_t count = 0;
  for (const auto& rule : analysis::Rules()) count += rule.options.size();
  a->rule_options.reserve(count);  // the options keep pointers into it
  for (const auto& rule : analysis::Rules()) {
    for (const auto& o : rule.options) {
      a->rule_options.push_back(o.value);
      app.add_option(std::string(o.flag), a->rule_options.back(), std::string(o.help))
          ->capture_default_str()
          ->check(Finite(0, 1e12));
    }
  }
  AddCaptureOption(app, &a->request.captures,
                   " (vLLM/SGLang capture traces; repeat for several): graph-replayed kernels are "
                   "attributed to the op and Python frame that launched them at capture");
  app.add_option("--phase", a->request.phase,
                 "Only the steps of one phase of a serving trace: its window (first to last of "
                 "its steps: with interleaved phases it holds the other phase's steps too; the "
                 "'in <phase> steps' lines of a whole analysis price each phase's own), findings "
                 "and latency")
      ->check(OneOf({"prefill", "decode", "mixed", "other"}));
  app.add_option("--device", opts->device,
                 "kernel-efficiency: the GPU the trace ran on, overriding what the trace says "
                 "(gpuscope help roofline lists them)");
  app.add_option("--evidence", opts->evidence, "Instances listed per finding")
      ->capture_default_str()
      ->check(WholeIn(0, 1000000));
  app.add_option("--min-impact-percent", opts->min_impact_percent,
                 "Findings whose fix saves less than this share of the window are left out "
                 "(0: every finding)")
      ->capture_default_str()
      ->check(Finite(0.0, 100.0));
  return [a, opts, &common]() -> base::StatusOr<int> {
    AnalyzeRequest r = a->request;
    r.options = *opts;
    size_t k = 0;
    for (const auto& rule : analysis::Rules()) {
      for (const auto& opt : rule.options) opt.apply(r.options, a->rule_options[k++]);
    }
    GPUSCOPE_RETURN_IF_ERROR(CheckDevice(r.options.device));  // before a long load
    if (auto files = JobFiles(r.path); !files.empty()) {
      GPUSCOPE_ASSIGN_OR_RETURN(auto job, LoadJob(files, common));
      analysis::JobOptions jo;
      jo.min_impact_percent = r.options.min_impact_percent;
      jo.evidence = r.options.evidence;
      std::fputs(JobOutput(std::move(job), r.path, r.format, true, r.full_names, jo).c_str(),
                 stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(r.path, common, "analyze"));
    GPUSCOPE_ASSIGN_OR_RETURN(auto out, AnalyzeOutput(trace, r, common));
    std::fputs(out.c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
