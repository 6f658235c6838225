#include "analysis/timeline/memory_timeline.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/memory_places.h"

namespace gpuscope::analysis {

namespace {

// The blocks of `live` (address -> allocation event) by the op and Python line that allocated
// them, largest first.
std::vector<MemoryHolder> ByPlace(const model::Trace& t,
                                  const std::unordered_map<uint64_t, size_t>& live,
                                  MemoryPlaces& places, int64_t* known) {
  const auto& m = t.memory;
  std::map<std::pair<std::string, std::string>, MemoryHolder> by_place;
  for (const auto& [addr, i] : live) {
    MemoryPlace p = places.Of(i);
    MemoryHolder& h = by_place[{p.op, p.python}];
    h.op = p.op, h.python = p.python;
    h.bytes += m.bytes[i], ++h.blocks;
    *known += m.bytes[i];
  }
  std::vector<MemoryHolder> out;
  for (auto& [key, h] : by_place) out.push_back(std::move(h));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes
                              : std::tie(a.op, a.python) < std::tie(b.op, b.python);
  });
  return out;
}

DeviceMemory OneDevice(const model::Trace& t, const SteadyState& steady,
                       const std::vector<size_t>& rows, size_t top, MemoryPlaces& places) {
  const auto& m = t.memory;
  DeviceMemory d;
  d.device = m.device[rows.front()];
  d.events = rows.size();
  d.totals_recorded =
      std::all_of(rows.begin(), rows.end(), [&](size_t i) { return m.allocated[i] >= 0; });
  // The allocated bytes after each event.
  std::vector<int64_t> after(rows.size());
  int64_t running = 0;
  size_t peak = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    size_t i = rows[k];
    running += m.bytes[i];
    after[k] = d.totals_recorded ? m.allocated[i] : running;
    d.allocations += m.bytes[i] > 0, d.frees += m.bytes[i] < 0;
    if (k == 0 || after[k] > after[peak]) peak = k;
    if (m.reserved[i] > d.peak_reserved_bytes) {
      d.peak_reserved_bytes = m.reserved[i];
      d.peak_reserved_at_ns = m.ts_ns[i];
    }
  }
  // The chart's points: per time bucket the event with the most allocated after it.
  const int64_t t0 = m.ts_ns[rows.front()], t1 = m.ts_ns[rows.back()];
  const double per_bucket =
      std::max(1.0, static_cast<double>(t1 - t0) / static_cast<double>(kMemorySeriesPoints));
  int64_t bucket = -1;
  for (size_t k = 0; k < rows.size(); ++k) {
    size_t i = rows[k];
    auto b = static_cast<int64_t>(static_cast<double>(m.ts_ns[i] - t0) / per_bucket);
    MemoryPoint p{m.ts_ns[i], after[k], m.reserved[i]};
    if (b != bucket || d.series.empty()) {
      d.series.push_back(p);
      bucket = b;
    } else if (p.allocated_bytes > d.series.back().allocated_bytes) {
      d.series.back() = p;
    }
  }
  d.peak_allocated_bytes = after[peak];
  d.peak_at_ns = m.ts_ns[rows[peak]];
  d.final_allocated_bytes = after.back();
  // The blocks alive at the peak: allocations up to it not freed by then (by address).
  std::unordered_map<uint64_t, size_t> live;  // address -> the allocation's event
  for (size_t k = 0; k <= peak; ++k) {
    size_t i = rows[k];
    if (m.addr[i] == 0) continue;
    if (m.bytes[i] > 0) live[m.addr[i]] = i;
    if (m.bytes[i] < 0) live.erase(m.addr[i]);
  }
  int64_t known = 0;
  d.holders = ByPlace(t, live, places, &known);
  if (d.totals_recorded && d.peak_allocated_bytes > known) {
    MemoryHolder before{"(allocated before the trace)", "", d.peak_allocated_bytes - known, 0};
    auto pos = std::find_if(d.holders.begin(), d.holders.end(),
                            [&](const MemoryHolder& h) { return h.bytes < before.bytes; });
    d.holders.insert(pos, std::move(before));
  }
  if (d.holders.size() > top) {
    MemoryHolder rest;
    rest.op = "(";  // appended, not concatenated: GCC 12 warns on a + chain here (-Wrestrict)
    rest.op.append(std::to_string(d.holders.size() - top)).append(" other places)");
    for (size_t k = top; k < d.holders.size(); ++k)
      rest.bytes += d.holders[k].bytes, rest.blocks += d.holders[k].blocks;
    d.holders.resize(top);
    d.holders.push_back(std::move(rest));
  }
  // The steady steps: the allocated bytes at each one's end, and what it allocated.
  for (const auto& it : steady.iterations) {
    if (it.warmup) continue;
    int64_t s = it.start_ns, e = it.start_ns + it.dur_ns;
    MemoryStep step{it.number, e, 0, 0, 0};
    auto end = std::upper_bound(rows.begin(), rows.end(), e,
                                [&](int64_t v, size_t i) { return v < m.ts_ns[i]; });
    size_t k_end = static_cast<size_t>(end - rows.begin());
    step.allocated_bytes = k_end == 0 ? 0 : after[k_end - 1];
    for (size_t k = k_end; k-- > 0 && m.ts_ns[rows[k]] >= s;) {
      if (m.bytes[rows[k]] > 0)
        ++step.allocations, step.allocated_in_step_bytes += m.bytes[rows[k]];
    }
    d.steps.push_back(step);
  }
  // What the steady steps allocated and kept past the last one's end.
  const IterationSpan* first = nullptr;
  const IterationSpan* last = nullptr;
  for (const auto& it : steady.iterations) {
    if (it.warmup) continue;
    if (!first) first = &it;
    last = &it;
  }
  if (first) {
    std::unordered_map<uint64_t, size_t> kept;
    for (size_t k = 0; k < rows.size() && m.ts_ns[rows[k]] <= last->end_ns(); ++k) {
      size_t i = rows[k];
      if (m.addr[i] == 0) continue;
      if (m.bytes[i] > 0 && m.ts_ns[i] >= first->start_ns) kept[m.addr[i]] = i;
      if (m.bytes[i] < 0) kept.erase(m.addr[i]);
    }
    int64_t unused = 0;
    d.kept = ByPlace(t, kept, places, &unused);
    if (d.kept.size() > top) d.kept.resize(top);
  }
  bool rising = d.steps.size() >= 3;
  for (size_t k = 1; k < d.steps.size() && rising; ++k)
    rising = d.steps[k].allocated_bytes >= d.steps[k - 1].allocated_bytes;
  if (rising) {
    d.growth_per_step_bytes = (d.steps.back().allocated_bytes - d.steps.front().allocated_bytes) /
                              static_cast<int64_t>(d.steps.size() - 1);
  }
  return d;
}

}  // namespace

MemoryTimeline BuildMemoryTimeline(const model::Trace& t, const SteadyState& steady, size_t holders,
                                   const Attributor* at) {
  MemoryTimeline out;
  std::map<int, std::vector<size_t>> by_device;
  for (size_t i = 0; i < t.memory.size(); ++i) by_device[t.memory.device[i]].push_back(i);
  if (by_device.empty()) return out;
  std::optional<Attributor> own;
  if (!at) at = &own.emplace(t);
  MemoryPlaces places(t, *at);
  for (auto& [device, rows] : by_device) {
    std::stable_sort(rows.begin(), rows.end(),
                     [&](size_t a, size_t b) { return t.memory.ts_ns[a] < t.memory.ts_ns[b]; });
    out.devices.push_back(OneDevice(t, steady, rows, std::max<size_t>(1, holders), places));
  }
  return out;
}

}  // namespace gpuscope::analysis
