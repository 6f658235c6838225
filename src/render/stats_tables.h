#pragma once
// The `stats` tables as ResultTables: the same rows for the terminal, CSV (`stats --format csv`,
// `convert`'s kernels.csv ...) and JSON (`stats --format json`).

#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/stats.h"
#include "render/result_table.h"

namespace gpuscope::render {

// `limit`: rows built at most (0: all). The stats are sorted largest first; a trace of a million
// distinct names prints its top rows without building a million (memory bound, issue 33).
ResultTable KernelTable(const analysis::Stats& stats, size_t limit = 0);
ResultTable MemopTable(const analysis::Stats& stats);
ResultTable ApiTable(const std::vector<analysis::ApiStat>& api, size_t limit = 0);
ResultTable CpuOpTable(const analysis::Stats& stats, size_t limit = 0);
// GPU time by launching op (--by op)
ResultTable OpTable(const analysis::Stats& stats, size_t limit = 0);
// GPU time by kernel category (--by category; analyze's summary in JSON), every category.
ResultTable CategoryTable(const std::vector<analysis::CategoryStat>& categories);
// "gemm 58.0%, fused 18.7%, attention 12.5%": the first `n` categories (largest first) holding
// at least 0.05% of the time; "" when none does.
std::string CategoryLine(const std::vector<analysis::CategoryStat>& categories, size_t n);
ResultTable CounterTable(const analysis::Stats& stats);
ResultTable MemoryTable(const analysis::Stats& stats, size_t limit = 0);

// One table by its `--by` name: kernels, memops, api, os, cpu, counters, op, category, memory.
ResultTable StatsTable(const analysis::Stats& stats, std::string_view which, size_t limit = 0);

}  // namespace gpuscope::render
