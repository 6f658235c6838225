// MemoryByOp: the `stats --by memory` table.

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/attribution/memory_places.h"
#include "analysis/stats/stats.h"

namespace gpuscope::analysis {

std::vector<OpMemoryStat> MemoryByOp(const model::Trace& t, const StatsOptions& opt,
                                     const Attributor& at) {
  const auto& m = t.memory;
  MemoryPlaces places(t, at);
  std::map<std::tuple<int, std::string, std::string>, OpMemoryStat> by_place;
  // Per device, the live blocks by address -> the place that allocated them (in the window).
  std::map<std::pair<int, uint64_t>, std::pair<OpMemoryStat*, int64_t>> live;
  std::vector<size_t> order(m.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return m.ts_ns[a] < m.ts_ns[b]; });
  bool addresses = false;
  for (size_t i : order) {
    const std::pair<int, uint64_t> block{m.device[i], m.addr[i]};
    addresses |= m.addr[i] != 0;
    if (!opt.In(m.ts_ns[i])) {
      // A free after (or between) the windows still ends a block allocated in one.
      if (m.bytes[i] < 0) live.erase(block);
      continue;
    }
    MemoryPlace p = places.Of(i);
    OpMemoryStat& s = by_place[{m.device[i], p.op, p.python}];
    s.device = m.device[i], s.op = std::move(p.op), s.python = std::move(p.python);
    if (m.bytes[i] > 0) {
      ++s.allocations;
      s.allocated_bytes += m.bytes[i];
      s.largest_bytes = std::max(s.largest_bytes, m.bytes[i]);
      if (m.addr[i] != 0) live[block] = {&s, m.bytes[i]};
    } else if (m.bytes[i] < 0) {
      ++s.frees;
      s.freed_bytes -= m.bytes[i];
      live.erase(block);
    }
  }
  std::vector<OpMemoryStat> out;
  for (auto& [key, s] : by_place) s.alive_bytes = addresses ? 0 : -1;
  for (auto& [block, held] : live) held.first->alive_bytes += held.second;
  for (auto& [key, s] : by_place) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const OpMemoryStat& a, const OpMemoryStat& b) {
    return std::tie(b.allocated_bytes, b.freed_bytes, a.device, a.op, a.python) <
           std::tie(a.allocated_bytes, a.freed_bytes, b.device, b.op, b.python);
  });
  return out;
}

}  // namespace gpuscope::analysis
