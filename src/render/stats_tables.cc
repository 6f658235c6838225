#include "render/stats_tables.h"

#include <algorithm>

#include "base/shown_name.h"
#include "base/text.h"

namespace gpuscope::render {
namespace {

// "1,024 pageable, 3 pinned" for host<->device copies; "-" for other kinds.
std::string HostMemory(const analysis::MemopStat& s) {
  if (s.kind != model::MemopKind::kHtoD && s.kind != model::MemopKind::kDtoH) return "-";
  std::string out;
  auto add = [&](uint64_t n, const char* what) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += base::FormatCount(n) + " " + what;
  };
  add(s.pageable, "pageable");
  add(s.pinned, "pinned");
  add(s.host_unknown, "not recorded");
  return out;
}

// name, then the DurationSummary columns, then `extra`; the terminal shows the first extra
// column first (when asked), then Total, Calls, the other durations, then the name.
ResultTable DurationTable(std::vector<Column> extra, bool terminal_first_extra) {
  std::vector<Column> cols = {Column::Flexible("name", "Name"),
                              {"calls", "Calls", Show::kCount},
                              {"total_ns", "Total ({unit})", Show::kDuration},
                              {"avg_ns", "Avg ({unit})", Show::kDuration},
                              {"median_ns", "Med ({unit})", Show::kDuration},
                              {"min_ns", "Min ({unit})", Show::kDuration},
                              {"max_ns", "Max ({unit})", Show::kDuration},
                              {"stddev_ns", "StdDev ({unit})", Show::kDuration}};
  const size_t n = cols.size();
  cols.insert(cols.end(), extra.begin(), extra.end());
  ResultTable t(std::move(cols));
  std::vector<size_t> order = {2, 1, 3, 4, 5, 6, 7, 0};
  if (terminal_first_extra) order.insert(order.begin(), n);
  t.SetTerminalOrder(order);
  return t;
}

// The name and DurationSummary cells of a row (the extra cells follow); medians and the like a
// summary-only source does not know (-1) are absent.
void DurationCells(std::vector<Cell>& cells, std::string_view name,
                   const analysis::DurationSummary& d) {
  cells.insert(cells.end(),
               {Cell::Text(base::ShownName(name)), Cell::Uint(d.calls), Cell::Int(d.total_ns),
                Cell::Int(d.avg_ns), Cell::IntOrNull(d.median_ns), Cell::IntOrNull(d.min_ns),
                Cell::IntOrNull(d.max_ns), Cell::IntOrNull(d.stddev_ns)});
}
}  // namespace

// The first `limit` items of `v` (all for 0).
template <typename T>
size_t Rows(const std::vector<T>& v, size_t limit) {
  return limit == 0 ? v.size() : std::min(limit, v.size());
}

ResultTable KernelTable(const analysis::Stats& st, size_t limit) {
  ResultTable t = DurationTable({{"percent", "Time %", Show::kFixed1, "", false, 4}}, true);
  // Made row by row as written: a million kernel names are not held twice (issue 33).
  t.SetRows(Rows(st.kernels, limit), [&st](size_t i, std::vector<Cell>& cells) {
    const auto& k = st.kernels[i];
    DurationCells(cells, k.name, k);
    cells.push_back(Cell::Real(k.percent));
  });
  return t;
}

ResultTable MemopTable(const analysis::Stats& st) {
  ResultTable t({{"kind", "Kind", Show::kText},
                 {"calls", "Calls", Show::kCount},
                 {"bytes", "", Show::kCount},
                 Column::TerminalOnly("Bytes"),
                 {"calls_unknown_bytes", "", Show::kCount},
                 {"total_ns", "Total ({unit})", Show::kDuration},
                 {"gbps", "", Show::kFixed3},
                 Column::TerminalOnly("Avg GB/s"),
                 {"host_memory.pageable", "", Show::kCount},
                 {"host_memory.pinned", "", Show::kCount},
                 {"host_memory.unknown", "", Show::kCount, "host_unknown"},
                 Column::Flexible("", "Host memory")});
  for (const auto& m : st.memops) {
    const bool all_unknown = m.calls_unknown_bytes == m.calls;
    std::string bytes = all_unknown ? "unknown" : base::FormatBytes(m.bytes);
    if (m.calls_unknown_bytes > 0 && !all_unknown)
      bytes += " (+" + base::FormatCount(m.calls_unknown_bytes) + " unknown)";
    const bool host = m.kind == model::MemopKind::kHtoD || m.kind == model::MemopKind::kDtoH;
    auto host_count = [&](uint64_t n) { return host ? Cell::Uint(n) : Cell::Null(); };
    t.AddRow({Cell::Text(std::string(model::MemopKindName(m.kind))), Cell::Uint(m.calls),
              all_unknown ? Cell::Null() : Cell::Int(m.bytes), Cell::Text(bytes),
              Cell::Uint(m.calls_unknown_bytes), Cell::Int(m.total_ns),
              m.bandwidth_known ? Cell::Real(m.gbps) : Cell::Null(),
              Cell::Text(m.bandwidth_known ? base::FormatFixed(m.gbps, 2) : "unknown"),
              host_count(m.pageable), host_count(m.pinned), host_count(m.host_unknown),
              Cell::Text(HostMemory(m))});
  }
  return t;
}

ResultTable ApiTable(const std::vector<analysis::ApiStat>& api, size_t limit) {
  ResultTable t = DurationTable({{"domain", "", Show::kText}}, false);
  t.SetRows(Rows(api, limit), [&api](size_t i, std::vector<Cell>& cells) {
    DurationCells(cells, api[i].name, api[i]);
    cells.push_back(Cell::Text(std::string(api[i].domain)));
  });
  return t;
}

ResultTable CpuOpTable(const analysis::Stats& st, size_t limit) {
  ResultTable t({Column::Flexible("name", "Name"),
                 {"calls", "Calls", Show::kCount},
                 {"total_ns", "Total ({unit})", Show::kDuration},
                 {"self_ns", "Self ({unit})", Show::kDuration},
                 {"avg_ns", "Avg ({unit})", Show::kDuration}});
  t.SetTerminalOrder({2, 3, 1, 4, 0});
  t.SetRows(Rows(st.cpu_ops, limit), [&st](size_t i, std::vector<Cell>& cells) {
    const auto& r = st.cpu_ops[i];
    cells.insert(cells.end(), {Cell::Text(base::ShownName(r.name)), Cell::Uint(r.calls),
                               Cell::Int(r.total_ns), Cell::Int(r.self_ns), Cell::Int(r.avg_ns)});
  });
  return t;
}

ResultTable CounterTable(const analysis::Stats& st) {
  ResultTable t({Column::Flexible("name", "Name"),
                 {"samples", "Samples", Show::kCount},
                 {"min", "Min", Show::kNumber},
                 {"mean", "Mean", Show::kFixed3},
                 {"max", "Max", Show::kNumber}});
  t.SetTerminalOrder({1, 2, 3, 4, 0});
  for (const auto& c : st.counters) {
    t.AddRow({Cell::Text(base::ShownName(c.name)), Cell::Uint(c.samples), Cell::Real(c.min),
              Cell::Real(c.mean), Cell::Real(c.max)});
  }
  return t;
}

ResultTable OpTable(const analysis::Stats& st, size_t limit) {
  ResultTable t({Column::Flexible("op", "Op"),
                 Column::Flexible("python", "Python"),
                 {"in_graph", "Graph"},
                 {"kernels", "Kernels", Show::kCount},
                 {"copies", "Copies", Show::kCount},
                 {"gpu_ns", "GPU time ({unit})", Show::kDuration},
                 {"percent", "Time %", Show::kFixed1, "", false, 4}});
  t.SetTerminalOrder({5, 6, 3, 4, 2, 0, 1});
  t.SetRows(Rows(st.ops, limit), [&st](size_t i, std::vector<Cell>& cells) {
    const auto& o = st.ops[i];
    cells.insert(cells.end(), {Cell::Text(o.op.empty() ? "(no op)" : o.op), Cell::Text(o.python),
                               Cell::Text(o.in_graph ? "yes" : "no"), Cell::Uint(o.kernels),
                               Cell::Uint(o.copies), Cell::Int(o.gpu_ns), Cell::Real(o.percent)});
  });
  return t;
}

ResultTable CategoryTable(const std::vector<analysis::CategoryStat>& categories) {
  ResultTable t({{"category", "Category", Show::kText},
                 {"calls", "Calls", Show::kCount},
                 {"total_ns", "GPU time ({unit})", Show::kDuration},
                 {"percent", "Time %", Show::kFixed1, "", false, 4}});
  t.SetTerminalOrder({2, 3, 1, 0});
  for (const auto& c : categories) {
    t.AddRow({Cell::Text(std::string(analysis::CategoryName(c.category))), Cell::Uint(c.calls),
              Cell::Int(c.total_ns), Cell::Real(c.percent)});
  }
  return t;
}

std::string CategoryLine(const std::vector<analysis::CategoryStat>& categories, size_t n) {
  std::string out;
  size_t shown = 0;
  for (const auto& c : categories) {
    if (shown == n || c.percent < 0.05) break;
    out += (shown++ ? ", " : "") + std::string(analysis::CategoryName(c.category)) + " " +
           base::FormatFixed(c.percent, 1) + "%";
  }
  return out;
}

// Bytes for the terminal ("-": not known); machine formats carry the integer columns.
Cell BytesText(int64_t b) { return Cell::Text(b < 0 ? "-" : base::FormatBytes(b)); }

ResultTable MemoryTable(const analysis::Stats& st, size_t limit) {
  ResultTable t({{"device", "GPU", Show::kCount},
                 Column::Flexible("op", "Op"),
                 Column::Flexible("python", "Python"),
                 {"allocations", "Allocs", Show::kCount},
                 {"allocated_bytes"},
                 Column::TerminalOnly("Allocated"),
                 {"largest_bytes"},
                 Column::TerminalOnly("Largest"),
                 {"frees", "Frees", Show::kCount},
                 {"freed_bytes"},
                 Column::TerminalOnly("Freed"),
                 {"self_bytes"},
                 Column::TerminalOnly("Self"),
                 {"alive_bytes"},
                 Column::TerminalOnly("At end")});
  t.SetTerminalOrder({5, 3, 10, 12, 14, 0, 1, 2});  // largest and frees: machine formats
  t.SetRows(Rows(st.memory, limit), [&st](size_t i, std::vector<Cell>& cells) {
    const auto& m = st.memory[i];
    const int64_t self = m.self_bytes();
    std::string self_text = self < 0 ? "-" : "";  // appended: GCC 12's -Wrestrict on "-" + s
    self_text.append(base::FormatBytes(self < 0 ? -self : self));
    cells.insert(
        cells.end(),
        {Cell::Int(m.device), Cell::Text(m.op.empty() ? "(outside any op)" : m.op),
         Cell::Text(m.python), Cell::Uint(m.allocations), Cell::Int(m.allocated_bytes),
         BytesText(m.allocated_bytes), Cell::Int(m.largest_bytes), BytesText(m.largest_bytes),
         Cell::Uint(m.frees), Cell::Int(m.freed_bytes), BytesText(m.freed_bytes), Cell::Int(self),
         Cell::Text(self_text), Cell::IntOrNull(m.alive_bytes), BytesText(m.alive_bytes)});
  });
  return t;
}

ResultTable StatsTable(const analysis::Stats& st, std::string_view which, size_t limit) {
  if (which == "op") return OpTable(st, limit);
  if (which == "category") return CategoryTable(st.categories);
  if (which == "memops") return MemopTable(st);
  if (which == "api") return ApiTable(st.api, limit);
  if (which == "os") return ApiTable(st.os_runtime, limit);
  if (which == "cpu") return CpuOpTable(st, limit);
  if (which == "counters") return CounterTable(st);
  if (which == "memory") return MemoryTable(st, limit);
  return KernelTable(st, limit);
}

}  // namespace gpuscope::render
