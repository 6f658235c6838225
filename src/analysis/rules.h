#pragma once
// The finding rules of `gpuscope analyze`, as a registry: each rule is one file in rules/ with one
// entry - its id, help texts, options with their defaults, and the check that detects it and
// supplies its fix. The analyzer runs them in registry order; the CLI flags, AnalyzeOptions'
// defaults, `gpuscope help findings` and docs/findings.md all come from these entries, so each
// is written once. Rule ids are a contract (JSON consumers key on them).

#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::model {
class Trace;
}

namespace gpuscope::analysis {

struct AnalyzeOptions;
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

struct RuleInfo {
  std::string_view id;
  std::string_view title;
  std::string_view definition;  // what fires it, exactly
  std::string_view impact;      // the fix the replay applies to price it
  std::string_view advice;      // the fix, for the user
  std::vector<RuleOption> options;
  DetectFn detect = nullptr;
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

// What the traced program is written with, for advice in its own words.
struct Ecosystem {
  bool framework = false;  // PyTorch ops (aten::) or Python frames recorded
  bool hip = false;        // an AMD GPU or HIP runtime calls
};
Ecosystem DetectEcosystem(const model::Trace& t);
// The rule's advice for that program: `advice` for framework code; `runtime_advice` (when the
// rule has one) for plain CUDA programs, and in HIP's words (hipHostMalloc, rocBLAS, HIP graph)
// for HIP programs.
std::string AdviceFor(const RuleInfo& rule, const Ecosystem& e);

// Every rule, in the order analyze runs them (specific root causes first, the catch-alls last).
const std::vector<RuleInfo>& Rules();
const RuleInfo* FindRule(std::string_view id);

// Severity from impact: >= 10% of the window high, >= 3% medium, else low.
std::string_view SeverityFor(double impact_percent);

}  // namespace gpuscope::analysis
