#include "analysis/findings/registry.h"

#include "analysis/findings/finding.h"
#include "analysis/findings/rules/rule_checks.h"
#include "base/text.h"
#include "model/trace.h"

namespace gpuscope::analysis {

const std::vector<RuleInfo>& Rules() {
  using namespace internal;  // NOLINT: the rule entries
  static const std::vector<RuleInfo> rules = {
      WarmUpRule(),        HostSyncRule(),      MemcpySyncRule(),   MemcpyPageableRule(),
      SmallMemcpyRule(),   MemcpyInLoopRule(),  AllocatorRule(),    DeviceCopyRule(),
      FusionRule(),        DataLoadingRule(),   CommWaitRule(),     CpuOpStormRule(),
      LaunchBoundRule(),   KernelOutlierRule(), SmallGridRule(),    KernelEfficiencyRule(),
      KernelHotspotRule(), GpuIdleRule(),       MemoryGrowthRule(), LowUtilizationRule(),
  };
  return rules;
}

const RuleInfo* FindRule(std::string_view id) {
  for (const auto& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

bool ListedWhateverItSaves(const Finding& f) {
  if (f.severity == Severity::kInfo) return true;
  const RuleInfo* rule = FindRule(f.rule);
  return rule && (rule->listing == RuleInfo::Listing::kSummary ||
                  rule->listing == RuleInfo::Listing::kAlwaysListed);
}

std::string RuleInfo::Defaults() const {
  std::string out;
  for (const auto& o : options) {
    if (!out.empty()) out += ", ";
    out += std::string(o.flag);
    out += ' ';
    out += base::FormatFixed(o.value, o.value == static_cast<int64_t>(o.value) ? 0 : 2);
  }
  return out.empty() ? "always on" : out;
}

std::string AdviceFor(const RuleInfo& rule, const Ecosystem& e) {
  if (e.framework || rule.runtime_advice.empty()) return std::string(rule.advice);
  std::string out(rule.runtime_advice);
  if (!e.hip) return out;
  // CUDA's words -> HIP's: the names that differ first, then the cuda prefix.
  static constexpr std::pair<std::string_view, std::string_view> kHip[] = {
      {"cudaHostAlloc", "hipHostMalloc"},
      {"cudaMallocHost", "hipHostMalloc"},
      {"cuBLASLt", "hipBLASLt"},
      {"cuBLAS", "rocBLAS"},
      {"cuDNN", "MIOpen"},
      {"CUTLASS", "Composable Kernel"},
      {"CUDA graph", "HIP graph"},
      {"cuda", "hip"}};
  for (const auto& [from, to] : kHip) {
    for (size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size())) {
      out.replace(p, from.size(), to);
    }
  }
  return out;
}

AnalyzeOptions::AnalyzeOptions() {
  for (const auto& r : Rules()) {
    for (const auto& o : r.options) o.apply(*this, o.value);
  }
}

}  // namespace gpuscope::analysis
