#pragma once
// `gpuscope stats` rendered: the summary tables as a terminal report, CSV (one table) or the JSON
// contract {"source", "window"?, "kernels", "memops", "api", "os_runtime"?, "cpu_ops",
// "counters"?}.

#include <cstddef>
#include <cstdio>
#include <string>

#include "analysis/stats/stats.h"
#include "analysis/steps/steady_state.h"
#include "model/trace.h"

namespace gpuscope::render {

struct StatsView {
  std::string path;
  std::string by;          // "" = every table, else kernels, memops, api, os, cpu, counters
  std::string window;      // "steady state: ..." when limited to the steady state, else ""
  bool steady = false;     // the window was asked for (JSON then carries "window")
  size_t top = 0;          // rows per table, 0 = all
  bool top_given = false;  // else the terminal shows 25 kernels / 15 rows, JSON and CSV all
  bool full_names = false;
  std::FILE* stream = nullptr;  // JSON, CSV: streamed there as made; the rest is returned
};

// "steady state: 7 iterations after 1 warm-up (ProfilerStep#N)": what `stats --steady` kept.
std::string SteadyWindowLabel(const analysis::SteadyState& steady);

std::string StatsText(const model::Trace& trace, const analysis::Stats& stats, const StatsView& v,
                      size_t width);
std::string StatsJson(const model::Trace& trace, const analysis::Stats& stats, const StatsView& v);
std::string StatsCsv(const analysis::Stats& stats, const StatsView& v);

}  // namespace gpuscope::render
