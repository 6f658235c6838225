#pragma once
// Trace: the one in-memory model every importer fills and every analysis reads.
// It owns the string pool, the tracks (threads, GPU streams), the devices, the event tables
// and what the importer learnt about the file (format, version, clock, problems).
// A Trace is move-only; analyses take it by const reference.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/string_pool.h"
#include "model/problems.h"
#include "model/tables.h"

namespace gpuscope::model {

// A timeline: a host thread or a GPU stream/queue.
struct Track {
  TrackKind kind = TrackKind::kOther;
  int64_t pid = -1;       // OS process id (host tracks); -1 when not numeric
  int64_t tid = -1;       // OS thread id (host) or stream id (GPU)
  int32_t device = -1;    // GPU tracks
  StringId pid_text = 0;  // pid/tid as written in the file ("Spans", "4093687616")
  StringId tid_text = 0;
  StringId name = 0;  // thread name / stream label when the trace gives one
};

struct Device {
  int32_t id = -1;
  std::string name;
  Vendor vendor = Vendor::kUnknown;
  int64_t total_memory = 0;
  int32_t compute_units = 0;  // SMs (NVIDIA) / CUs (AMD)
  int32_t warp_size = 0;
  int32_t compute_major = -1;
  int32_t compute_minor = -1;
};

// One pre-aggregated row of a summary-only source (rocprof --stats CSVs): the file has no
// events and no timeline, only these totals. Values the file does not give are -1.
struct SummaryRow {
  enum class Section : uint8_t { kKernel, kApi, kCopy };
  Section section = Section::kKernel;
  MemopKind copy_kind = MemopKind::kOther;  // kCopy rows: the direction (set by the importer)
  std::string name;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t min_ns = -1;
  int64_t max_ns = -1;
  int64_t stddev_ns = -1;
};

// A device's GPU timestamps shifted by --align-clocks (model/clock_alignment.h).
struct ClockShift {
  int device = -1;
  int64_t shift_ns = 0;
};

struct TraceMetadata {
  std::string path;
  std::string format;          // "kineto", "rpd", ...
  std::string format_version;  // what the importer detected, in words
  std::string producer;        // tool and version that wrote the file, when known
  std::string clock;           // clock domain of the timestamps
  int64_t base_time_ns = 0;    // add to every timestamp to get epoch ns (0 = unknown)
  std::map<std::string, std::string> properties;  // version keys etc., as written
  // The process's place in a distributed job (PyTorch's distributedInfo); -1 = not said.
  int32_t rank = -1;
  int32_t world_size = -1;
  uint64_t clamped_zero_events = 0;  // Kineto events whose negative time was clamped to 0
  // Time the tracer spent on itself, from the overhead records it wrote (left out of the
  // tables); 0 when it wrote none or gave no durations.
  int64_t profiler_overhead_ns = 0;
  void AddOverhead(int64_t ns) {  // saturating: hostile durations never overflow
    if (ns > 0) profiler_overhead_ns += std::min(ns, INT64_MAX - profiler_overhead_ns);
  }
  // Set when the file broke part-way (truncated, corrupt): where and why. The events read
  // before the break are kept.
  std::string import_error;
  // Kinds of events the file could hold but does not because they were not collected
  // (e.g. "memory copies (no CUPTI_ACTIVITY_KIND_MEMCPY table)"): `info` lists them.
  std::vector<std::string> not_collected;
  // The tracer's own warnings and errors about the traced processes that ran GPU work, each
  // text once, as written ("Not all CUDA events might have been collected."; nsys's
  // DIAGNOSTIC_EVENT): what it says it did not record. Health turns them into notes.
  std::vector<std::string> tracer_messages;
  // What --align-clocks shifted (empty: not asked, or no op started before its launch).
  std::vector<ClockShift> clock_shifts;
};

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) = default;
  Trace& operator=(Trace&&) = default;
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  base::StringPool strings;
  std::vector<Track> tracks;
  std::vector<Device> devices;
  std::map<int64_t, StringId> process_names;  // pid -> name

  KernelTable kernels;
  MemopTable memops;
  ApiTable api;
  CpuRangeTable cpu;
  PythonFrameTable python;
  GpuRangeTable gpu_ranges;
  CounterTable counters;
  InstantTable instants;
  MemoryEventTable memory;
  std::vector<Iteration> iterations;
  std::vector<LaunchArgRow> launch_args;  // kernels named by launch calls that did not run
  std::vector<SummaryRow> summary;        // only for summary-only sources

  TraceMetadata meta;
  ProblemLog problems;
  // Raw record counts that are not events in the tables (flows, metadata records, spans):
  // shown by `info` so that every record of the file is accounted for.
  std::map<std::string, uint64_t, std::less<>> record_counts;

  std::string_view str(StringId id) const { return strings.Get(id); }

  // Returns the track for (kind, pid text, tid text), creating it on first use.
  TrackId InternTrack(TrackKind kind, std::string_view pid_text, std::string_view tid_text);

  // [first start, last end] over all timed events; {0, 0} when there are none.
  std::pair<int64_t, int64_t> TimeSpan() const;
  uint64_t EventCount() const;
  // A source with totals but no timeline (rocprof *.stats.csv): only `stats` can use it.
  bool summary_only() const { return !summary.empty() && EventCount() == 0; }
  // Bytes held by the event tables and strings (capacity, not just size).
  size_t MemoryBytes();

 private:
  std::unordered_map<std::string, TrackId> track_index_;
};

// The longest stretch without GPU work or runtime calls in a trace, and its span: files of
// different runs read as one show a gap of hours or days that no run's idle moment has.
struct EventGap {
  int64_t first_ns = 0, last_ns = 0;  // the events' span
  int64_t from_ns = 0, to_ns = 0;     // the longest gap (from == to: none)
  int64_t active_ns = 0;  // the span less every gap of a minute or more: the time of the runs
  int64_t gap() const { return to_ns - from_ns; }
  // A gap of an hour or more and ten times the active time: the events are different runs.
  bool SeparatesRuns() const { return gap() >= 3'600'000'000'000 && gap() / 10 >= active_ns; }
};
EventGap LargestEventGap(const Trace& t);

}  // namespace gpuscope::model
