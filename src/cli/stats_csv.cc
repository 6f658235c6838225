#include "cli/stats_csv.h"

#include <algorithm>

#include "base/text.h"
#include "output/csv_writer.h"

namespace gpuscope::cli {
namespace {

template <typename Row>
size_t Count(const std::vector<Row>& rows, size_t limit) {
  return limit == 0 ? rows.size() : std::min(limit, rows.size());
}

}  // namespace

std::string StatsTableCsv(const analysis::Stats& st, std::string_view table, size_t limit) {
  output::CsvWriter c;
  auto s = [](auto v) { return std::to_string(v); };
  if (table == "memops") {
    c.Row({"kind", "calls", "bytes", "calls_unknown_bytes", "total_ns", "gbps", "pageable", "pinned", "host_unknown"});
    for (const auto& m : st.memops) {
      c.Row({std::string(model::MemopKindName(m.kind)), s(m.calls), m.calls_unknown_bytes == m.calls ? "" : s(m.bytes),
             s(m.calls_unknown_bytes), s(m.total_ns), m.bandwidth_known ? base::FormatFixed(m.gbps, 6) : "",
             s(m.pageable), s(m.pinned), s(m.host_unknown)});
    }
  } else if (table == "api" || table == "os") {
    const auto& api = table == "api" ? st.api : st.os_runtime;
    c.Row({"name", "calls", "total_ns", "avg_ns", "median_ns", "min_ns", "max_ns", "domain"});
    for (size_t i = 0, n = Count(api, limit); i < n; ++i) {
      const auto& r = api[i];
      c.Row({r.name, s(r.calls), s(r.total_ns), s(r.avg_ns), s(r.median_ns), s(r.min_ns), s(r.max_ns),
             std::string(r.domain)});
    }
  } else if (table == "counters") {
    c.Row({"name", "samples", "min", "mean", "max"});
    for (const auto& r : st.counters) {
      c.Row({r.name, s(r.samples), base::FormatFixed(r.min, 6), base::FormatFixed(r.mean, 6), base::FormatFixed(r.max, 6)});
    }
  } else if (table == "cpu") {
    c.Row({"name", "calls", "total_ns", "self_ns", "avg_ns"});
    for (size_t i = 0, n = Count(st.cpu_ops, limit); i < n; ++i) {
      const auto& r = st.cpu_ops[i];
      c.Row({r.name, s(r.calls), s(r.total_ns), s(r.self_ns), s(r.avg_ns)});
    }
  } else {
    c.Row({"name", "calls", "total_ns", "avg_ns", "median_ns", "min_ns", "max_ns", "stddev_ns", "percent"});
    for (size_t i = 0, n = Count(st.kernels, limit); i < n; ++i) {
      const auto& k = st.kernels[i];
      c.Row({k.name, s(k.calls), s(k.total_ns), s(k.avg_ns), s(k.median_ns), s(k.min_ns), s(k.max_ns),
             s(k.stddev_ns), base::FormatFixed(k.percent, 4)});
    }
  }
  return c.str();
}

}  // namespace gpuscope::cli
