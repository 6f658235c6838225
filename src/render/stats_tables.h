#pragma once
// The `stats` tables as ResultTables: the same rows for the terminal, CSV (`stats --format csv`,
// `convert`'s kernels.csv ...) and JSON (`stats --format json`).

#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "render/result_table.h"

namespace gpuscope::render {

ResultTable KernelTable(const analysis::Stats& stats);
ResultTable MemopTable(const analysis::Stats& stats);
ResultTable ApiTable(const std::vector<analysis::ApiStat>& api);
ResultTable CpuOpTable(const analysis::Stats& stats);
ResultTable OpTable(const analysis::Stats& stats);  // GPU time by launching op (--by op)
ResultTable CounterTable(const analysis::Stats& stats);

// One table by its `--by` name: kernels, memops, api, os, cpu, counters.
ResultTable StatsTable(const analysis::Stats& stats, std::string_view which);

}  // namespace gpuscope::render
