#pragma once
// WriteChromeTrace: the trace as Chrome trace-event JSON (the Kineto dialect), which
// ui.perfetto.dev, chrome://tracing and gpuscope itself open. Streams event by event into the
// sink: the output is never held whole in memory.
//
// What it writes: one "X" event per kernel, copy, API call, CPU op, Python frame and GPU range
// (Kineto categories, args grid/block/bytes/correlation/device/stream kept), "i" for instants,
// "C" for counters, an "s"/"f" flow pair from each launch call to its GPU work, process and
// thread names with sort indexes, and the iteration markers given on a row of their own
// (category "gpuscope_iteration", which gpuscope skips when it reads the file back).
// Times are microseconds with 3 decimals relative to the first event (exact to the ns and
// exact in a double), with baseTimeNanoseconds when the source's epoch is known.

#include <cstdint>
#include <string>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::output {

// A labelled span drawn on a row of its own (iterations found by the steady-state analysis, a
// stretch of the critical path, a finding's event); `detail` goes into its args.
struct MarkerSpan {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  std::string name;
  std::string detail;
};

// A row of spans gpuscope derived, under the "gpuscope" process; `category` says what reads it
// back skips (format/chrome_trace.h).
struct MarkerRow {
  std::string name;  // "iterations", "critical path", "finding: host-sync"
  std::string_view category;
  std::vector<MarkerSpan> spans;
};

struct ChromeTraceOptions {
  std::vector<MarkerRow> rows;
};

struct ChromeTraceCounts {
  uint64_t events = 0;  // X, i and C events
  uint64_t flows = 0;   // s/f pairs
};

base::StatusOr<ChromeTraceCounts> WriteChromeTrace(const model::Trace& trace,
                                                   const ChromeTraceOptions& options,
                                                   base::ByteSink& out);

}  // namespace gpuscope::output
