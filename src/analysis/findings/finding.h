#pragma once
// What a finding is and what a rule is, at the bottom of the findings room: the types the rules,
// the registry, the pricing and the analyze driver share, so that a rule includes this and the
// context (rules/rule_checks.h), never the driver (analyze.h).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/graph_attribution.h"
#include "analysis/steps/steady_state.h"
#include "analysis/work/kernel_categories.h"

namespace gpuscope::analysis {

// How much a finding matters: high >= 10% of the window, medium >= 3%, low below; info for
// what is reported without a fix to price (a hotspot, a summary). Words only in render
// (SeverityName).
enum class Severity { kHigh, kMedium, kLow, kInfo };
// Severity from a fix's standalone saving (what fixing that one problem alone saves): >= 10% of
// the window high, >= 3% medium, else low. A finding without a fix to price is info.
Severity SeverityFor(double impact_percent);
// "high", "medium", "low", "info": the JSON's and the table's word.
std::string_view SeverityName(Severity s);

// The analyzer's thresholds. The rules' defaults come from their registry entries (registry.h:
// the constructor applies them), so they are written once, next to the rule.
struct AnalyzeOptions {
  AnalyzeOptions();
  int64_t idle_gap_ns = 0;                 // gpu-idle
  int64_t tiny_kernel_ns = 0;              // launch-bound
  double storm_kernels_per_iteration = 0;  // launch-bound
  double storm_ops_per_iteration = 0;      // cpu-op-storm
  int64_t tiny_op_ns = 0;                  // cpu-op-storm
  int64_t small_copy_bytes = 0;            // small-memcpy
  double small_copies_per_iteration = 0;   // small-memcpy
  double device_copy_share = 0;            // device-copy (% of the GPU's busy time)
  double fusion_min_kernels = 0;           // fusion
  double fusion_share = 0;                 // fusion (% of the GPU's busy time)
  double outlier_mads = 0;                 // kernel-outlier
  double attainable_fraction = 0;          // kernel-efficiency
  double hotspot_share = 0;                // kernel-hotspot
  double small_grid_share = 0;             // small-grid (of the window)
  double low_utilization = 0;              // low-utilization
  size_t evidence = 5;                     // instances listed per finding
  double min_impact_percent = 0.1;         // findings below this share of the window are noise
  size_t stalls = 5;                       // largest GPU idle intervals of the trace listed
  SteadyStateOptions steady;
  // Graphs captured in other traces of the same program (`--capture FILE`), to attribute the
  // kernels graphs replay; graphs captured in the analysed trace itself are found anyway.
  std::vector<CapturedGraph> captures;
  // The GPU the trace ran on (`--device`, analysis/work/device_peaks.h) for kernel-efficiency;
  // "" = what the trace says.
  std::string device;
  // The kernel category table (`--categories`, analysis/work/kernel_categories.h); null: the
  // built-in one.
  std::shared_ptr<const CategoryRules> categories;
  // Threads: 1 analyses a serving trace's phases after the whole window, on this thread (less
  // memory: one window's replay at a time); otherwise beside it on a second thread when the
  // machine has more than one core (`--threads`).
  int threads = 0;
};

struct Evidence {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t iteration = -1;  // number of the iteration it fell in; -1 outside / none
  std::string what;
};

struct Finding {
  std::string rule;
  Severity severity = Severity::kLow;
  std::string title;
  // The window time this fix saves, priced by replaying the run's dependencies with the fix
  // applied. Findings are priced in order of their own saving, each on top of the fixes before
  // it and capped at its own saving, so that two findings never claim the same time and the
  // impacts add up to at most "combined" (fixes together may save more than their sum).
  int64_t impact_ns = 0;
  double impact_percent = 0;      // of the steady window
  int64_t standalone_ns = 0;      // the saving of this fix alone (replayed): ranks and grades it
  double standalone_percent = 0;  // of the steady window
  // Its place in the pricing order (-1: not priced in it), and the findings priced before it
  // (1-based numbers in the report's list): impact_ns is what it adds on top of those.
  int price_order = -1;
  std::vector<int> priced_after;
  std::string fix;  // what the replay changed to price it ("" for information)
  // The pricing, for `--explain` and the JSON: the replayed window without and with this fix
  // alone, the edits it made (counts) and the time they remove (the most the fix can save:
  // ReplayGraph::EditsRemoveNs).
  int64_t baseline_ns = 0, fixed_ns = 0, edits_remove_ns = 0;
  std::string changes;
  Where where;
  std::vector<Evidence> evidence;
  std::string detail;  // one line of measured facts (counts, bytes, per-iteration rates)
  std::string advice;
};

// Sorts a report's findings by standalone saving (what fixing each problem alone saves), the
// summaries and information after the measured costs, and names the findings priced before each.
void RankFindings(std::vector<Finding>& findings);
// Sets each finding's priced_after from the price_order of the findings listed (in list order).
void NamePricedBefore(std::vector<Finding>& findings);

namespace internal {
class Context;
class Claims;
struct Candidate;
}  // namespace internal

// A rule's threshold as the CLI shows it: flag, meaning, default in the flag's unit, and how it
// sets AnalyzeOptions.
struct RuleOption {
  std::string_view flag;  // "--idle-gap-us"
  std::string_view help;  // "shortest gap reported (us)"
  double value = 0;       // default, in the flag's unit
  void (*apply)(AnalyzeOptions&, double) = nullptr;
};

// Appends the rule's findings, each with the fix the replay prices it by; leaves out the events
// an earlier rule claimed and claims its own.
using DetectFn = void (*)(const internal::Context&, internal::Claims&,
                          std::vector<internal::Candidate>&);
// Work of the rule's that no claim changes (Context::Prepared), which analyze's second core may
// do before the rule's turn; the rule's detect asks for the same and gets it, made once.
using PrepareFn = void (*)(const internal::Context&);

// A rule as the registry, `help findings` and the pricing read it. Each rule defines one with
// designated initializers (.id = ..., .limits = ...), naming every text it sets.
struct RuleInfo {
  std::string_view id = {};
  std::string_view title = {};
  std::string_view definition = {};  // what fires it, exactly
  std::string_view impact = {};      // the fix the replay applies to price it
  std::string_view advice = {};      // the fix, for the user
  std::vector<RuleOption> options = {};
  DetectFn detect = nullptr;
  PrepareFn prepare = nullptr;  // none: all of its work depends on the claims before it
  // How analyze prices and lists its findings. kDefault: priced in order of its saving, listed
  // by impact when it saves at least the minimum. kCatchAll: priced after every other rule, on
  // what they leave (gpu-idle: the host work no other rule explains). kAlwaysListed: listed even
  // below the minimum impact (host-sync: cheap on a CPU-only run, it stalls a GPU pipeline).
  // kSummary: always listed, after the measured costs (low-utilization).
  enum class Listing { kDefault, kCatchAll, kAlwaysListed, kSummary };
  Listing listing = Listing::kDefault;
  // The fix for a program without a framework (no PyTorch ops or Python frames in the trace:
  // plain CUDA/HIP), in CUDA's words; HIP programs get it in HIP's (AdviceFor). Empty: `advice`
  // suits every program.
  std::string_view runtime_advice = {};
  // What it never fires on (its limits, stated in `help findings`): the cases a user might
  // expect it to catch, or fear it would wrongly catch.
  std::string_view limits = {};
  // "--idle-gap-us 20, ..." from the options, or "always on".
  std::string Defaults() const;
};

}  // namespace gpuscope::analysis
