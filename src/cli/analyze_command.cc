// `gpuscope analyze TRACE`: the ranked findings with their measured cost, where they come from
// and the fix; text report, JSON or CSV.

#include <cstdio>
#include <string>

#include "analysis/analyze.h"
#include "base/text.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "render/analyze_view.h"

namespace gpuscope::cli {
namespace {

struct AnalyzeArgs {
  std::string path;
  std::string format = "table";
  bool full_names = false;
  double idle_gap_us = 20, tiny_kernel_us = 10, tiny_op_us = 50, small_copy_kb = 64;
  double hotspot_percent = 10, low_utilization_percent = 50;
};

}  // namespace

void PrintAnalyzeReport(const model::Trace& trace, const std::string& path) {
  std::fputs(render::AnalyzeText(trace, analysis::Analyze(trace), {path, false}).c_str(), stdout);
}

CommandBody AddAnalyzeCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<AnalyzeArgs>();
  app.add_option("trace", a->path, "Trace file (any format gpuscope reads)")->required();
  app.add_option("--format", a->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  app.add_flag("--full-names", a->full_names,
               "Show names whole instead of fitting them to the terminal");
  app.add_option("--idle-gap-us", a->idle_gap_us, "gpu-idle: shortest gap reported (us)")
      ->capture_default_str();
  app.add_option("--tiny-kernel-us", a->tiny_kernel_us,
                 "launch-bound: kernels shorter than this (us)")
      ->capture_default_str();
  app.add_option("--tiny-op-us", a->tiny_op_us, "cpu-op-storm: ops shorter than this (us)")
      ->capture_default_str();
  auto opts = std::make_shared<analysis::AnalyzeOptions>();
  app.add_option("--storm-ops", opts->storm_ops_per_iteration,
                 "cpu-op-storm: tiny ops per iteration from one place")
      ->capture_default_str();
  app.add_option("--small-copies", opts->small_copies_per_iteration,
                 "small-memcpy: copies per iteration")
      ->capture_default_str();
  app.add_option("--small-copy-kb", a->small_copy_kb,
                 "small-memcpy: copies smaller than this (KiB)")
      ->capture_default_str();
  app.add_option("--outlier-mads", opts->outlier_mads, "kernel-outlier: MADs above the median")
      ->capture_default_str();
  app.add_option("--hotspot-percent", a->hotspot_percent, "kernel-hotspot: share of kernel time")
      ->capture_default_str();
  app.add_option("--low-utilization-percent", a->low_utilization_percent,
                 "low-utilization: GPU busy share below this")
      ->capture_default_str();
  app.add_option("--evidence", opts->evidence, "Instances listed per finding")
      ->capture_default_str();
  return [a, opts, &common]() -> base::StatusOr<int> {
    GPUSCOPE_ASSIGN_OR_RETURN(auto trace, LoadTimeline(a->path, common, "analyze"));
    analysis::AnalyzeOptions o = *opts;
    o.idle_gap_ns = static_cast<int64_t>(a->idle_gap_us * 1e3);
    o.tiny_kernel_ns = static_cast<int64_t>(a->tiny_kernel_us * 1e3);
    o.tiny_op_ns = static_cast<int64_t>(a->tiny_op_us * 1e3);
    o.small_copy_bytes = static_cast<int64_t>(a->small_copy_kb * 1024);
    o.hotspot_share = a->hotspot_percent / 100;
    o.low_utilization = a->low_utilization_percent / 100;
    analysis::AnalysisReport r = analysis::Analyze(trace, o);
    const render::AnalyzeView view{a->path, a->full_names};
    if (a->format == "json")
      std::fputs(render::AnalyzeJson(trace, r, view).c_str(), stdout);
    else if (a->format == "csv")
      std::fputs(render::AnalyzeCsv(r).c_str(), stdout);
    else
      std::fputs(render::AnalyzeText(trace, r, view).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
