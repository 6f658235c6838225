#pragma once
// StatsTableCsv: one `stats` table as CSV (the columns of `gpuscope stats --format csv --by T`),
// shared by `stats` and `convert` (which writes kernels.csv, memops.csv, api.csv, cpu_ops.csv).

#include <cstddef>
#include <string>
#include <string_view>

#include "analysis/stats.h"

namespace gpuscope::cli {

// `table`: kernels, memops, api, os, cpu, counters. `limit` rows at most (0 = all).
std::string StatsTableCsv(const analysis::Stats& stats, std::string_view table, size_t limit);

}  // namespace gpuscope::cli
