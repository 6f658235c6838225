// kernel-hotspot: the kernels holding most of the steady-state GPU time (information).

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {
// The rule's own helpers, apart from every other rule's in a unity build.
namespace kernel_hotspot_rule {
namespace {

// One of the window's three largest kernel names at or above the threshold share, with the call
// site holding most of its time: what the rule lists, made before its turn where a second core
// is free (claim-free).
struct Hot {
  int64_t ns = 0;
  model::StringId name = 0;
  double share = 0;                                        // of the window's kernel time
  std::tuple<std::string, std::string, std::string> site;  // (python, op, graph)
};
using Hottest = std::vector<Hot>;  // largest first

// The call site (op, Python frame; the captured one for graph kernels) with most of `name`'s
// time in the window; empty where it has none.
std::tuple<std::string, std::string, std::string> SiteOf(const Context& c, model::StringId name) {
  const Trace& t = c.t();
  // Summed by the site's ids (a few sites, many instances), then named once per site.
  std::map<Attributor::SiteIds, int64_t> by_ids;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (t.kernels.name[i] != name || !c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) continue;
    by_ids[c.at().KernelSite(i)] += t.kernels.dur_ns[i];
  }
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> sites;
  for (const auto& [ids, ns] : by_ids) {
    Where w = c.at().SiteWhere(ids);
    sites[{w.python, w.op, w.graph}] += ns;
  }
  auto site = std::max_element(sites.begin(), sites.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return site != sites.end() ? site->first : std::tuple<std::string, std::string, std::string>{};
}

Hottest MakeHottest(const Context& c) {
  const Trace& t = c.t();
  // Kernel time per name: the window's (name, time) pairs sorted by name and summed in place
  // (16 bytes per kernel, not a map node per name: a million names, issue 33); the three
  // largest as (time, name), largest first.
  std::vector<std::pair<model::StringId, int64_t>> by_name;
  int64_t total = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.GpuIn(t.kernels.start_ns[i], t.kernels.launch[i])) continue;
    by_name.emplace_back(t.kernels.name[i], t.kernels.dur_ns[i]);
    total += t.kernels.dur_ns[i];
  }
  std::sort(by_name.begin(), by_name.end());
  std::vector<std::pair<int64_t, model::StringId>> ranked;
  for (size_t b = 0, e = 0; b < by_name.size(); b = e) {
    int64_t ns = 0;
    for (; e < by_name.size() && by_name[e].first == by_name[b].first; ++e) ns += by_name[e].second;
    const std::pair<int64_t, model::StringId> entry{ns, by_name[b].first};
    if (ranked.size() == 3 && entry < ranked.back()) continue;
    ranked.insert(std::upper_bound(ranked.begin(), ranked.end(), entry, std::greater<>()), entry);
    if (ranked.size() > 3) ranked.pop_back();
  }
  std::vector<std::pair<model::StringId, int64_t>>().swap(by_name);
  // Only the names the rule lists: at least the threshold share.
  Hottest out;
  for (const auto& [ns, name] : ranked) {
    const double share = total ? static_cast<double>(ns) / static_cast<double>(total) : 0;
    if (share < c.o().hotspot_share) break;
    out.push_back({ns, name, share, SiteOf(c, name)});
  }
  return out;
}

void Prepare(const Context& c) { c.Prepared(MakeHottest); }

void Detect(const Context& c, Claims&, std::vector<Candidate>& out) {
  for (const Hot& hot : c.Prepared(MakeHottest)) {
    Candidate cand{Make(c, "kernel-hotspot", 0), {}};
    Finding& f = cand.finding;
    f.severity = Severity::kInfo;
    std::tie(f.where.python, f.where.op, f.where.graph) = hot.site;
    f.where.kernel = base::Demangle(c.t().str(hot.name));
    f.detail = base::FormatFixed(100 * hot.share, 1) + "% of the steady-state kernel time (" +
               base::FormatDuration(hot.ns) + ")";
    out.push_back(std::move(cand));
  }
}

}  // namespace
}  // namespace kernel_hotspot_rule

const RuleInfo& KernelHotspotRule() {
  static const RuleInfo rule{
      .id = "kernel-hotspot",
      .title = "Kernels that dominate GPU time",
      .definition =
          "Kernels holding at least the threshold share of the steady-state GPU kernel time. "
          "Information: where optimisation effort pays.",
      .impact = "0 (information).",
      .advice =
          "Check that these kernels run at the expected throughput (roofline: FLOPs and bytes "
          "against the device's peak); try a better algorithm/library, mixed precision or "
          "torch.compile.",
      .options = {{"--hotspot-percent", "kernel-hotspot: share of kernel time", 10,
                   [](AnalyzeOptions& o, double v) { o.hotspot_share = v / 100; }}},
      .detect = &kernel_hotspot_rule::Detect,
      .prepare = &kernel_hotspot_rule::Prepare,
      .runtime_advice =
          "Check these kernels' throughput against the device's peaks (gpuscope roofline) and "
          "against a tuned library (cuBLASLt, cuDNN, CUTLASS).",
      .limits = "kernels below the threshold share; it is information and saves nothing itself."};
  return rule;
}

}  // namespace gpuscope::analysis::internal
