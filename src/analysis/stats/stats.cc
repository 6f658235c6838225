#include "analysis/stats/stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/stats/duration_summary.h"
#include "base/stage_timer.h"
#include "base/text.h"

namespace gpuscope::analysis {
using model::StringId;

namespace {

template <typename Stat>
void SortByTotal(std::vector<Stat>& v) {
  std::sort(v.begin(), v.end(), [](const Stat& a, const Stat& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
}

// Dense group ids by display name: mangled and demangled spellings of one kernel merge. Names
// are read from the trace's pool (a demangled spelling is kept only when it differs), so a
// million distinct names cost their ids, not a copy of each. The pool holds each text once:
// two raw names are the same group exactly when their ids are equal, and only demangled
// spellings need a lookup by text.
struct NameGroups {
  std::vector<uint32_t> of_row;        // per row: its group
  std::vector<std::string_view> name;  // per group: the display name
  std::vector<std::string> demangled;  // storage of the display names that are not the pool's
};

NameGroups GroupByName(const model::Trace& trace, const std::vector<StringId>& names,
                       bool demangle) {
  constexpr uint32_t kNone = UINT32_MAX;
  NameGroups g;
  std::vector<uint32_t> by_id(trace.strings.size(), kNone);
  // Demangled spellings first collected by group, then made views once their storage stops
  // moving.
  std::vector<std::pair<uint32_t, std::string>> pending;
  g.of_row.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    uint32_t& group = by_id[names[i]];
    if (group == kNone) {
      group = static_cast<uint32_t>(g.name.size());
      std::string_view raw = trace.str(names[i]);
      g.name.push_back(raw);
      if (demangle && base::LooksMangled(raw)) {
        std::string display = base::Demangle(raw);
        if (display != raw) pending.emplace_back(group, std::move(display));
      }
    }
    g.of_row[i] = group;
  }
  if (pending.empty()) return g;
  // A demangled name joins the group of a raw name with its text, else of the first demangled
  // name with its text, else stays its own group.
  g.demangled.reserve(pending.size());
  std::vector<uint32_t> remap(g.name.size());
  for (uint32_t k = 0; k < remap.size(); ++k) remap[k] = k;
  std::unordered_map<std::string_view, uint32_t> by_demangled;
  for (auto& [group, text] : pending) {
    g.demangled.push_back(std::move(text));
    std::string_view display = g.demangled.back();
    StringId raw = 0;
    if (trace.strings.Find(display, &raw) && by_id[raw] != kNone) {
      remap[group] = by_id[raw];
      continue;
    }
    auto [it, inserted] = by_demangled.emplace(display, group);
    if (inserted)
      g.name[group] = display;
    else
      remap[group] = it->second;
  }
  for (uint32_t& r : g.of_row) r = remap[r];
  return g;
}

// Per group: the summed time and the calls of its counted rows, and the totals over all.
struct GroupTotals {
  std::vector<int64_t> total_ns;  // saturating at INT64_MAX (only ranks the groups)
  std::vector<uint64_t> calls;
  size_t groups = 0;  // with at least one counted row
  uint64_t all_calls = 0;
};

GroupTotals TotalsOf(const NameGroups& g, const std::vector<int64_t>& dur_ns,
                     const std::vector<uint8_t>& counts) {
  GroupTotals t;
  t.total_ns.assign(g.name.size(), 0);
  t.calls.assign(g.name.size(), 0);
  for (size_t i = 0; i < counts.size(); ++i) {
    if (!counts[i]) continue;
    uint32_t k = g.of_row[i];
    if (__builtin_add_overflow(t.total_ns[k], dur_ns[i], &t.total_ns[k])) t.total_ns[k] = INT64_MAX;
    t.groups += t.calls[k]++ == 0;
    ++t.all_calls;
  }
  return t;
}

// Keeps counting only the rows of the `max_rows` groups with the most time (ties by name, as
// SortByTotal orders the rows): a table printed to its first rows is built with those alone,
// not a row per name (a million distinct names, issue 33). 0 keeps every group.
void KeepLargest(const NameGroups& g, const GroupTotals& t, size_t max_rows,
                 std::vector<uint8_t>& counts) {
  if (max_rows == 0 || t.groups <= max_rows) return;
  std::vector<uint32_t> order;
  order.reserve(t.groups);
  for (uint32_t k = 0; k < t.calls.size(); ++k)
    if (t.calls[k] > 0) order.push_back(k);
  std::nth_element(order.begin(), order.begin() + static_cast<long>(max_rows), order.end(),
                   [&](uint32_t a, uint32_t b) {
                     if (t.total_ns[a] != t.total_ns[b]) return t.total_ns[a] > t.total_ns[b];
                     return g.name[a] < g.name[b];
                   });
  std::vector<uint8_t> kept(t.calls.size(), 0);
  for (size_t r = 0; r < max_rows; ++r) kept[order[r]] = 1;
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = counts[i] && kept[g.of_row[i]];
}

// Per group: the durations of its rows that count, as runs of one sorted buffer (one 16-byte
// entry per row instead of a vector per group).
template <typename Fn>
void ForEachGroupDurations(const NameGroups& g, const model::SliceColumns& rows,
                           const std::vector<uint8_t>& counts, Fn&& fn) {
  std::vector<std::pair<uint32_t, int64_t>> pairs;
  size_t counted = 0;
  for (uint8_t c : counts) counted += c;
  pairs.reserve(counted);
  for (size_t i = 0; i < rows.size(); ++i)
    if (counts[i]) pairs.emplace_back(g.of_row[i], rows.dur_ns[i]);
  std::sort(pairs.begin(), pairs.end());
  std::vector<int64_t> d;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i;
    d.clear();
    for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j) d.push_back(pairs[j].second);
    fn(pairs[i].first, d);
    i = j;
  }
}

// How many rows a table of these groups gets: every group, or the max_rows with the most time.
size_t RowsKept(const GroupTotals& t, size_t max_rows) {
  return std::min(t.groups, max_rows ? max_rows : t.groups);
}

// A row per group whose rows count (at most max_rows, those with the most time): its name, what
// `fill(group, stat)` adds of the table's own, and the summary of its durations.
template <typename Stat, typename Fill>
std::vector<Stat> SummarizedGroups(const NameGroups& g, const GroupTotals& totals,
                                   const model::SliceColumns& rows, std::vector<uint8_t>& counts,
                                   size_t max_rows, Fill&& fill) {
  KeepLargest(g, totals, max_rows, counts);
  std::vector<Stat> out;
  out.reserve(RowsKept(totals, max_rows));
  ForEachGroupDurations(g, rows, counts, [&](uint32_t group, std::vector<int64_t>& d) {
    Stat stat;
    stat.name = g.name[group];
    fill(group, stat);
    static_cast<DurationSummary&>(stat) = SummarizeDurations(d);
    out.push_back(std::move(stat));
  });
  return out;
}

std::vector<KernelStat> KernelStats(const model::Trace& trace, const StatsOptions& opt, Stats& s) {
  NameGroups g = GroupByName(trace, trace.kernels.name, opt.demangle);
  std::vector<uint8_t> counts(trace.kernels.size());
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = opt.In(trace.kernels.start_ns[i]);
  GroupTotals totals = TotalsOf(g, trace.kernels.dur_ns, counts);
  s.kernel_names = totals.groups;
  s.kernel_calls = totals.all_calls;
  // The exact sum of every counted kernel (each row's summary sums without overflow).
  int64_t all = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i]) all += trace.kernels.dur_ns[i];
  auto out = SummarizedGroups<KernelStat>(g, totals, trace.kernels, counts, opt.max_rows,
                                          [](uint32_t, KernelStat&) {});
  for (auto& k : out) k.percent = all > 0 ? 100.0 * static_cast<double>(k.total_ns) / all : 0;
  SortByTotal(out);
  s.kernel_total_ns = all;
  // The demangled names' storage moves whole (the strings, and so the rows' views, stay put).
  s.names = std::make_shared<const std::vector<std::string>>(std::move(g.demangled));
  return out;
}

std::vector<MemopStat> MemopStats(const model::Trace& trace, const StatsOptions& opt) {
  std::vector<MemopStat> by_kind(model::kMemopKindCount);
  std::vector<int64_t> timed_ns(model::kMemopKindCount, 0);  // time of ops with known size
  const auto& m = trace.memops;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!opt.In(m.start_ns[i])) continue;
    auto k = static_cast<size_t>(m.kind[i]);
    MemopStat& s = by_kind[k];
    s.kind = m.kind[i];
    ++s.calls;
    s.total_ns += m.dur_ns[i];
    if (m.bytes[i] >= 0) {
      s.bytes += m.bytes[i];
      timed_ns[k] += m.dur_ns[i];
    } else {
      ++s.calls_unknown_bytes;
    }
    model::MemoryKind host = model::MemoryKind::kUnknown;
    if (m.kind[i] == model::MemopKind::kHtoD) host = m.src[i];
    if (m.kind[i] == model::MemopKind::kDtoH) host = m.dst[i];
    if (m.kind[i] == model::MemopKind::kHtoD || m.kind[i] == model::MemopKind::kDtoH) {
      if (host == model::MemoryKind::kPageable)
        ++s.pageable;
      else if (host == model::MemoryKind::kPinned)
        ++s.pinned;
      else
        ++s.host_unknown;
    }
  }
  std::vector<MemopStat> out;
  for (size_t k = 0; k < by_kind.size(); ++k) {
    MemopStat& s = by_kind[k];
    if (s.calls == 0) continue;
    s.bandwidth_known = s.calls_unknown_bytes < s.calls && timed_ns[k] > 0;
    // bytes per ns is GB/s (1e9 B / 1e9 ns).
    if (s.bandwidth_known) s.gbps = static_cast<double>(s.bytes) / static_cast<double>(timed_ns[k]);
    out.push_back(s);
  }
  return out;
}

std::vector<ApiStat> ApiStats(const model::Trace& trace, const StatsOptions& opt, bool os_runtime,
                              size_t* names) {
  NameGroups g = GroupByName(trace, trace.api.name, false);
  std::vector<uint8_t> counts(trace.api.size());
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> first_row(g.name.size(), kNone);  // the domain is the first call's
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i] = (trace.api.domain[i] == model::ApiDomain::kOs) == os_runtime &&
                opt.In(trace.api.start_ns[i]);
    if (counts[i] && first_row[g.of_row[i]] == kNone)
      first_row[g.of_row[i]] = static_cast<uint32_t>(i);
  }
  GroupTotals totals = TotalsOf(g, trace.api.dur_ns, counts);
  *names = totals.groups;
  auto out = SummarizedGroups<ApiStat>(
      g, totals, trace.api, counts, opt.max_rows, [&](uint32_t group, ApiStat& a) {
        a.domain = model::ApiDomainName(trace.api.domain[first_row[group]]);
      });
  SortByTotal(out);
  return out;
}

std::vector<CpuOpStat> CpuOpStats(const model::Trace& trace, const StatsOptions& opt,
                                  size_t* names) {
  const auto& cpu = trace.cpu;
  // Self time: subtract direct children (CPU ranges and API calls) from each range.
  std::vector<int64_t> child_ns(cpu.size(), 0);
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu.parent[i] != model::kNoRow) child_ns[cpu.parent[i]] += cpu.dur_ns[i];
  }
  for (size_t i = 0; i < trace.api.size(); ++i) {
    if (trace.api.enclosing_op[i] != model::kNoRow)
      child_ns[trace.api.enclosing_op[i]] += trace.api.dur_ns[i];
  }
  NameGroups g = GroupByName(trace, cpu.name, false);
  std::vector<uint8_t> counts(cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i)
    counts[i] = cpu.kind[i] == model::CpuRangeKind::kOp && opt.In(cpu.start_ns[i]);
  GroupTotals totals = TotalsOf(g, cpu.dur_ns, counts);
  *names = totals.groups;
  KeepLargest(g, totals, opt.max_rows, counts);
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> row_of(g.name.size(), kNone);  // per group: its row in `out`
  std::vector<CpuOpStat> out;
  // Sized once: a million rows grown by doubling would hold up to twice their size.
  out.reserve(RowsKept(totals, opt.max_rows));
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (!counts[i]) continue;
    uint32_t& row = row_of[g.of_row[i]];
    if (row == kNone) {
      row = static_cast<uint32_t>(out.size());
      out.emplace_back();
      out.back().name = g.name[g.of_row[i]];
    }
    CpuOpStat& c = out[row];
    ++c.calls;
    c.total_ns += cpu.dur_ns[i];
    c.self_ns += std::max<int64_t>(0, cpu.dur_ns[i] - child_ns[i]);
  }
  for (auto& c : out) c.avg_ns = c.total_ns / static_cast<int64_t>(c.calls);
  SortByTotal(out);
  return out;
}

std::vector<CounterStat> CounterStats(const model::Trace& trace, const StatsOptions& opt) {
  std::map<std::string_view, CounterStat> by_name;
  const auto& c = trace.counters;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!opt.In(c.ts_ns[i])) continue;
    CounterStat& s = by_name[trace.str(c.name[i])];
    double v = c.value[i];
    if (s.samples == 0 || v < s.min) s.min = v;
    if (s.samples == 0 || v > s.max) s.max = v;
    s.mean += v;  // sum until the end
    ++s.samples;
  }
  std::vector<CounterStat> out;
  for (auto& [name, s] : by_name) {
    s.name = std::string(name);
    s.mean /= static_cast<double>(s.samples);
    out.push_back(std::move(s));
  }
  return out;
}

// A summary row's durations as a table row gives them: no median (the file has none).
DurationSummary SummaryDurations(const model::SummaryRow& r) {
  DurationSummary d;
  d.calls = r.calls;
  d.total_ns = r.total_ns;
  d.avg_ns = r.calls ? r.total_ns / static_cast<int64_t>(r.calls) : 0;
  d.median_ns = -1;
  d.min_ns = r.min_ns;
  d.max_ns = r.max_ns;
  d.stddev_ns = r.stddev_ns;
  return d;
}

// Stats of a summary-only source: its rows, in the same shapes and orders.
Stats SummaryStats(const model::Trace& trace) {
  Stats s;
  std::map<model::MemopKind, MemopStat> memops;
  for (const auto& r : trace.summary) {
    switch (r.section) {
      case model::SummaryRow::Section::kKernel: {
        KernelStat k;
        static_cast<DurationSummary&>(k) = SummaryDurations(r);
        k.name = r.name;
        s.kernel_total_ns += r.total_ns;
        s.kernels.push_back(std::move(k));
        break;
      }
      case model::SummaryRow::Section::kApi: {
        ApiStat a;
        static_cast<DurationSummary&>(a) = SummaryDurations(r);
        a.name = r.name;
        a.domain = model::ApiDomainName(model::ApiDomain::kRuntime);
        s.api.push_back(std::move(a));
        break;
      }
      case model::SummaryRow::Section::kCopy: {
        model::MemopKind kind = r.copy_kind;
        MemopStat& m = memops[kind];
        m.kind = kind;
        m.calls += r.calls;
        m.calls_unknown_bytes += r.calls;
        m.total_ns += r.total_ns;
        if (kind == model::MemopKind::kHtoD || kind == model::MemopKind::kDtoH)
          m.host_unknown += r.calls;
        break;
      }
    }
  }
  for (auto& k : s.kernels) {
    k.percent = s.kernel_total_ns ? 100.0 * static_cast<double>(k.total_ns) /
                                        static_cast<double>(s.kernel_total_ns)
                                  : 0;
  }
  SortByTotal(s.kernels);
  SortByTotal(s.api);
  for (auto& [kind, m] : memops) s.memops.push_back(m);
  s.kernel_names = s.kernels.size(), s.api_names = s.api.size();
  s.cpu_op_names = s.cpu_ops.size(), s.os_runtime_names = s.os_runtime.size();
  for (const auto& k : s.kernels) s.kernel_calls += k.calls;
  return s;
}

}  // namespace

Stats ComputeStats(const model::Trace& trace, const StatsOptions& options) {
  if (trace.summary_only()) return SummaryStats(trace);
  Stats s;
  base::StageTimer timer;  // GPUSCOPE_TIMING=1: time and peak memory per table
  s.kernels = KernelStats(trace, options, s);
  timer.Lap("stats: kernels");
  s.memops = MemopStats(trace, options);
  s.api = ApiStats(trace, options, false, &s.api_names);
  s.os_runtime = ApiStats(trace, options, true, &s.os_runtime_names);
  timer.Lap("stats: copies, API calls");
  s.cpu_ops = CpuOpStats(trace, options, &s.cpu_op_names);
  timer.Lap("stats: CPU ops");
  s.counters = CounterStats(trace, options);
  return s;
}

}  // namespace gpuscope::analysis
