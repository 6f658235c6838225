// launch-bound: storms of tiny kernels whose launch cost keeps the GPU waiting.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

void LaunchBound(const Context& c, std::vector<Finding>& out) {
  const Trace& t = c.t();
  int64_t idle = 0;
  size_t count = 0;
  std::map<std::string, size_t> kernels;
  std::map<std::pair<std::string, std::string>, size_t> from;
  std::vector<size_t> rows;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!c.In(t.kernels.start_ns[i]) || t.kernels.dur_ns[i] >= c.o().tiny_kernel_ns) continue;
    RowId l = t.kernels.launch[i];
    if (l == kNoRow || t.api.dur_ns[l] <= t.kernels.dur_ns[i]) continue;
    int64_t before = c.IdleBefore(t.kernels.device[i], t.kernels.start_ns[i]);
    if (before <= 0) continue;
    idle += before;
    ++count;
    rows.push_back(i);
    ++kernels[std::string(t.str(t.kernels.name[i]))];
    Where w = c.at().Api(l);
    ++from[{w.python, w.op}];
  }
  if (count == 0) return;
  Finding f = Make(c, "launch-bound", idle);
  auto top = std::max_element(from.begin(), from.end(),
                              [](auto& a, auto& b) { return a.second < b.second; });
  f.where.python = top->first.first;
  f.where.op = top->first.second;
  std::vector<std::pair<size_t, std::string>> ranked;
  for (auto& [n, k] : kernels) ranked.emplace_back(k, n);
  std::sort(ranked.rbegin(), ranked.rend());
  f.where.kernel = ranked.front().second;
  f.detail = base::FormatCount(count) + " tiny kernels (< " +
             base::FormatDuration(c.o().tiny_kernel_ns) +
             ", launch call longer than the kernel) after GPU idle, " +
             c.PerIterationText(static_cast<double>(count));
  for (const auto& [k, n] : ranked) {
    if (f.evidence.size() >= c.o().evidence) break;
    f.evidence.push_back({0, 0, -1, n + ": " + c.PerIterationText(static_cast<double>(k))});
  }
  out.push_back(std::move(f));
}

}  // namespace gpuscope::analysis::internal
