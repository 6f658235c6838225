#pragma once
// Stats: the summary tables of `gpuscope stats`, as rocprof --stats and nsys stats print them.
//
// Summary-only sources (rocprof *.stats.csv) give totals per name but no events: their rows carry
// what the file gives and -1 for what it does not (median always; min/max/stddev for legacy
// rocprof).
//
// Definitions (the same for every input format):
//  - a kernel row aggregates every GPU kernel dispatch with the same (display) name;
//    Time % is its share of the summed kernel time; Med is the median (mean of the two middle
//    values for an even count, rounded down); StdDev is the sample standard deviation (n-1),
//    0 for a single call - as nsys stats computes them;
//  - memory operations aggregate by direction (HtoD, DtoH, DtoD, HtoH, PtoP, Memset); GB/s is
//    known bytes / total time of the operations whose size is known;
//  - API rows aggregate runtime, driver and HSA calls by name; OS runtime calls (read, ioctl,
//    ...) are a separate table, as nsys's osrt_sum is;
//  - counter rows summarise each counter series (count, min, mean of the samples, max);
//  - CPU op rows aggregate framework ops by name; Self = duration minus the durations of the
//    CPU ranges and API calls directly inside it on the same thread.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/stats/duration_summary.h"
#include "analysis/work/kernel_categories.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// One kernel name's dispatches (calls, total, mean, median, min, max, stddev: DurationSummary).
// Names in these rows are views: of the trace's strings (which must outlive the Stats) or of
// the demangled spellings the Stats holds (Stats::names) - a million distinct names are not
// copied (issue 33).
struct KernelStat : DurationSummary {
  std::string_view name;
  double percent = 0;  // of the summed kernel time
};

struct MemopStat {
  model::MemopKind kind = model::MemopKind::kOther;
  uint64_t calls = 0;
  int64_t bytes = 0;  // sum over operations whose size is known
  uint64_t calls_unknown_bytes = 0;
  int64_t total_ns = 0;
  double gbps = 0;  // 0 when no size is known
  bool bandwidth_known = false;
  // Host side of host<->device copies: how many were pageable / pinned / of unknown pinning.
  uint64_t pageable = 0;
  uint64_t pinned = 0;
  uint64_t host_unknown = 0;
};

// One API function's calls.
struct ApiStat : DurationSummary {
  std::string_view name;
  std::string_view domain;  // "runtime", "driver", "hsa", "os" (of the first call)
};

struct CpuOpStat {
  std::string_view name;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
  int64_t avg_ns = 0;
};

// One counter series (GPU clock, memory in use, ...): the samples' count, min, mean and max.
struct CounterStat {
  std::string name;
  uint64_t samples = 0;
  double min = 0;
  double mean = 0;
  double max = 0;
};

struct StatsOptions {
  bool demangle = true;  // show mangled kernel names demangled
  // When not 0: the kernel, API, OS runtime and CPU op tables hold only their first max_rows
  // rows (those with the most time), for output that prints no more; the counts of rows before
  // the cut are in Stats (`*_names`).
  size_t max_rows = 0;
  // Only events starting in [window_start, window_end) count (`stats --steady`).
  int64_t window_start = INT64_MIN;
  int64_t window_end = INT64_MAX;
  // When not empty: only events starting in one of these sorted, disjoint [start, end)
  // intervals (`stats --phase`: the steps of one phase).
  std::vector<std::pair<int64_t, int64_t>> windows;
  bool In(int64_t ts) const {
    if (ts < window_start || ts >= window_end) return false;
    if (windows.empty()) return true;
    auto it = std::upper_bound(windows.begin(), windows.end(), std::make_pair(ts, INT64_MAX));
    return it != windows.begin() && ts < (it - 1)->second;
  }
};

// GPU time of the kernels and copies one place in the program launched (`stats --by op`): the op
// and user Python frame of the launch call, or for graph-replayed kernels of the captured launch.
struct OpGpuStat {
  std::string op, python;
  bool in_graph = false;
  uint64_t kernels = 0, copies = 0;
  int64_t gpu_ns = 0;
  double percent = 0;  // of the GPU op time counted
};

// A framework allocator's device memory events at one place in the program (`stats --by memory`,
// as PyTorch's "CUDA Mem" columns): allocations and frees made inside the op, by the op and user
// Python line around them (MemoryPlaces), per device.
struct OpMemoryStat {
  int device = 0;
  std::string op, python;
  uint64_t allocations = 0, frees = 0;
  int64_t allocated_bytes = 0, freed_bytes = 0;  // both >= 0
  int64_t largest_bytes = 0;                     // the largest single allocation
  // Of the bytes allocated here, those still allocated at the trace's end (a block's free is
  // found by its address, after the window too); -1 when the events carry no addresses.
  int64_t alive_bytes = -1;
  int64_t self_bytes() const { return allocated_bytes - freed_bytes; }
};

// GPU time of one kernel category (`stats --by category`); the memory operations of the trace
// (copies, memsets) count as `copy`.
struct CategoryStat {
  KernelCategory category = KernelCategory::kOther;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  double percent = 0;  // of the GPU op time counted (kernels and memory operations)
};

struct Stats {
  std::vector<CategoryStat> categories;  // only with `--by category`, by total_ns descending
  std::vector<OpGpuStat> ops;            // only with `--by op` (GpuTimeByOp), by gpu_ns descending
  // Only with memory events (MemoryByOp), by allocated bytes descending.
  std::vector<OpMemoryStat> memory;
  std::vector<KernelStat> kernels;    // sorted by total_ns descending, then name
  std::vector<MemopStat> memops;      // by kind, in MemopKind order; kinds never seen omitted
  std::vector<ApiStat> api;           // GPU runtime/driver/HSA calls, by total_ns descending
  std::vector<ApiStat> os_runtime;    // OS runtime calls (nsys OSRT), by total_ns descending
  std::vector<CpuOpStat> cpu_ops;     // sorted by total_ns descending
  std::vector<CounterStat> counters;  // by name
  int64_t kernel_total_ns = 0;        // of every counted kernel, cut rows included
  uint64_t kernel_calls = 0;          // dispatches counted, cut rows included
  // Rows of each table before a cut to StatsOptions::max_rows (the sizes without one).
  size_t kernel_names = 0, api_names = 0, os_runtime_names = 0, cpu_op_names = 0;
  // The demangled kernel names the rows view (shared by copies of the Stats).
  std::shared_ptr<const std::vector<std::string>> names;
};

Stats ComputeStats(const model::Trace& trace, const StatsOptions& options);

// The `categories` table: kernel time by category (`rules`), every category listed (those with
// no time too, in the table's order after the ones with time).
std::vector<CategoryStat> GpuTimeByCategory(const model::Trace& trace, const StatsOptions& options,
                                            const CategoryRules& rules);

class Attributor;
// The `ops` table: GPU op time by launching place, through `at` (graph attribution set on it).
std::vector<OpGpuStat> GpuTimeByOp(const model::Trace& trace, const StatsOptions& options,
                                   const Attributor& at);

// The `memory` table: allocator events starting in the window, by place (`at`: the trace's
// attribution, for the Python lines).
std::vector<OpMemoryStat> MemoryByOp(const model::Trace& trace, const StatsOptions& options,
                                     const Attributor& at);

}  // namespace gpuscope::analysis
