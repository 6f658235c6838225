// GpuTimeByOp: the `stats --by op` table.

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/attribution/attribution.h"
#include "analysis/stats/stats.h"

namespace gpuscope::analysis {

std::vector<OpGpuStat> GpuTimeByOp(const model::Trace& t, const StatsOptions& opt,
                                   const Attributor& at) {
  std::map<std::tuple<std::string, std::string, bool>, OpGpuStat> by_place;
  int64_t total = 0;
  auto add = [&](const Where& w, int64_t dur, bool kernel) {
    OpGpuStat& s = by_place[{w.op, w.python, !w.graph.empty()}];
    s.op = w.op, s.python = w.python, s.in_graph = !w.graph.empty();
    (kernel ? s.kernels : s.copies) += 1;
    s.gpu_ns += dur;
    total += dur;
  };
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (opt.In(t.kernels.start_ns[i])) add(at.Kernel(i), t.kernels.dur_ns[i], true);
  for (size_t i = 0; i < t.memops.size(); ++i)
    if (opt.In(t.memops.start_ns[i])) add(at.Memop(i), t.memops.dur_ns[i], false);
  std::vector<OpGpuStat> out;
  for (auto& [key, s] : by_place) {
    s.percent = total ? 100.0 * static_cast<double>(s.gpu_ns) / static_cast<double>(total) : 0;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const OpGpuStat& a, const OpGpuStat& b) {
    return a.gpu_ns != b.gpu_ns ? a.gpu_ns > b.gpu_ns : a.op < b.op;
  });
  return out;
}

}  // namespace gpuscope::analysis
