#pragma once
// Every kind of recoverable problem an importer, the validator or the linker counts, declared
// once: its name (the key `info` and the JSON show, a contract), what was done with the event,
// and what it means. ProblemLog::Add takes only these, so an undeclared kind does not compile;
// `gpuscope help problems` and docs/problems.md are generated from this list. To add a kind,
// add a line here (family.what, lowercase, the family being the format or the check).

#include <cstdint>
#include <string_view>

namespace gpuscope::model {

// What was done with the event or value: dropped (the event is not in the model), repaired
// (kept with a value replaced by 0, unknown or a placeholder) or kept (kept as read, noted).
enum class ProblemEffect : uint8_t { kDropped, kRepaired, kKept };

// X(enumerator, "name", effect, "what it means")
#define GPUSCOPE_PROBLEM_KINDS(X)                                                                 \
  X(kCsvFieldCount, "csv.field_count", kKept,                                                     \
    "a CSV row has more or fewer fields than its header; its fields are read by column name")     \
  X(kCsvNulByte, "csv.nul_byte", kDropped, "a CSV row holds a NUL byte (a damaged file)")         \
  X(kCsvUnbalancedQuote, "csv.unbalanced_quote", kRepaired,                                       \
    "a quote opened and never closed; the row ends at the end of its line")                       \
  X(kEventsCsvBadDims, "events_csv.bad_dims", kRepaired,                                          \
    "an events.csv kernel's grid/block is not \"x,y,z\"; kept as unknown")                        \
  X(kEventsCsvBadTime, "events_csv.bad_time", kDropped,                                           \
    "an events.csv row's start_ns/dur_ns is not an integer >= 0")                                 \
  X(kEventsCsvBadValue, "events_csv.bad_value", kDropped,                                         \
    "an events.csv counter without a numeric value")                                              \
  X(kEventsCsvUnknownKind, "events_csv.unknown_kind", kDropped,                                   \
    "an events.csv row of a kind gpuscope does not write")                                        \
  X(kImpossibleDuplicateEvents, "impossible.duplicate_events", kDropped,                          \
    "an event repeats another of the same table exactly (a file read twice, a bad merge)")        \
  X(kImpossibleStreamOverlap, "impossible.stream_overlap", kKept,                                 \
    "kernels of one stream overlap in time, which a stream never runs")                           \
  X(kImpossibleClockBackwards, "impossible.clock_backwards", kKept,                               \
    "a thread's later-numbered launch call starts before an earlier one: the clock jumped back")  \
  X(kImpossibleLaunchOrder, "impossible.launch_order", kKept,                                     \
    "on one stream, a kernel launched later from the same thread starts before an earlier one")   \
  X(kImpossibleZeroDurations, "impossible.zero_durations", kKept,                                 \
    "most kernels last 0 ns: the tool did not record their durations")                            \
  X(kImpossibleTimeUnit, "impossible.time_unit", kKept,                                           \
    "kernel or call durations fit another time unit than the file claims (ms or ns read as us)")  \
  X(kImpossibleMemorySize, "impossible.memory_size", kDropped,                                    \
    "an allocation or allocator total beyond the device's memory (else 2^48 bytes)")              \
  X(kImpossibleCopyBandwidth, "impossible.copy_bandwidth", kKept,                                 \
    "a copy of 1 MB or more moved faster than 100 TB/s (no link does): its bytes or time are "    \
    "wrong")                                                                                      \
  X(kImpossibleDeviceProperty, "impossible.device_property", kRepaired,                           \
    "a device with more compute units than any GPU (4096), a warp size other than 32 or 64, or "  \
    "more than 16 TiB of memory; the value is unknown")                                           \
  X(kImpossibleLaunchShape, "impossible.launch_shape", kRepaired,                                 \
    "a kernel with a block of more than 1024 threads, more than 512 registers per thread or "     \
    "more than 1 MiB of shared memory per block; those values are unknown")                       \
  X(kImpossibleNestedSteps, "impossible.nested_steps", kKept,                                     \
    "steps of one run hold other steps; the outer ones are left out of the iterations")           \
  X(kInvalidCounterValue, "invalid.counter_value", kDropped,                                      \
    "a counter sample whose value is not a finite number")                                        \
  X(kInvalidEndBeforeStart, "invalid.end_before_start", kDropped,                                 \
    "an event ends before it starts")                                                             \
  X(kInvalidImplausibleSize, "invalid.implausible_size", kRepaired,                               \
    "a copy of more than 1 PiB (more than any machine holds); its size is unknown")               \
  X(kInvalidMissingTime, "invalid.missing_time", kDropped,                                        \
    "an event's start or end time is missing or not a number")                                    \
  X(kInvalidNameEncoding, "invalid.name_encoding", kKept,                                         \
    "a name holds a NUL or bytes that are not UTF-8; shown with U+FFFD in JSON")                  \
  X(kInvalidNameControl, "invalid.name_control", kKept,                                           \
    "a name holds control characters or bidirectional overrides; shown escaped in text and CSV")  \
  X(kInvalidNameLength, "invalid.name_length", kKept,                                             \
    "a name longer than 64 KiB; cut in text, CSV and JSON views and the report, categorised "     \
    "by its first 64 KiB as written, whole in converted traces")                                  \
  X(kInvalidNegativeSize, "invalid.negative_size", kRepaired,                                     \
    "a copy's byte count is negative (and not -1, not recorded); its size is unknown")            \
  X(kInvalidTimeOutOfRange, "invalid.time_out_of_range", kDropped,                                \
    "an event lies far outside the clock range of the bulk of the trace's events")                \
  X(kKinetoBadArgValue, "kineto.bad_arg_value", kRepaired,                                        \
    "an event's arg has a value of the wrong type; the arg is ignored")                           \
  X(kKinetoBadDur, "kineto.bad_dur", kRepaired, "an event's 'dur' is not a number; duration 0")   \
  X(kKinetoBadField, "kineto.bad_field", kDropped,                                                \
    "an event field (ts, dur, pid, tid, name, ...) has a value of the wrong type")                \
  X(kKinetoBadTs, "kineto.bad_ts", kDropped, "an event's 'ts' is not a number")                   \
  X(kKinetoEventMissingDur, "kineto.event_missing_dur", kRepaired,                                \
    "a complete ('X') event without 'dur'; duration 0")                                           \
  X(kKinetoEventMissingTs, "kineto.event_missing_ts", kDropped,                                   \
    "a complete ('X') event without 'ts'")                                                        \
  X(kKinetoInvalidEvent, "kineto.invalid_event", kDropped,                                        \
    "an event that is not valid JSON (PyTorch leaves quotes in some Python frame names "          \
    "unescaped); skipped up to the next event")                                                   \
  X(kKinetoNegativeDur, "kineto.negative_dur", kRepaired, "a negative 'dur'; duration 0")         \
  X(kKinetoTsClampedToZero, "kineto.ts_clamped_to_zero", kKept,                                   \
    "events at ts 0 with duration 0 (Kineto clamps times before its base); left out of spans")    \
  X(kKinetoTsSubNsRounded, "kineto.ts_sub_ns_rounded", kRepaired,                                 \
    "timestamps finer than 1 ns; rounded to the nanosecond")                                      \
  X(kKinetoUnsupportedPhase, "kineto.unsupported_phase", kDropped,                                \
    "an event of a phase ('ph') gpuscope does not read")                                          \
  X(kLinkCpuRangesOverlap, "link.cpu_ranges_overlap", kKept,                                      \
    "CPU ranges on one thread overlap without nesting; each is a sibling of the one it overlaps") \
  X(kLinkDuplicateCorrelation, "link.duplicate_correlation", kKept,                               \
    "several API calls share one correlation id; GPU work is linked to the first")                \
  X(kNsysBuiltinEnum, "nsys.builtin_enum", kKept,                                                 \
    "ENUM_CUDA_MEMCPY_OPER missing (an older export): copy directions read by CUPTI's numbers")   \
  X(kNsysKernelWithoutName, "nsys.kernel_without_name", kRepaired,                                \
    "a kernel without a name; named <unnamed kernel>")                                            \
  X(kNsysMissingEnumTable, "nsys.missing_enum_table", kRepaired,                                  \
    "ENUM_CUDA_MEM_KIND missing: copies' memory kinds (pageable / pinned) are unknown")           \
  X(kNsysTableMissingColumns, "nsys.table_missing_columns", kDropped,                             \
    "an nsys table lacks columns gpuscope reads; the table is skipped")                           \
  X(kNsysUnknownNvtxType, "nsys.unknown_nvtx_type", kDropped,                                     \
    "an NVTX_EVENTS row of a type ENUM_NSYS_EVENT_TYPE does not define")                          \
  X(kRocpdKernelWithoutSymbol, "rocpd.kernel_without_symbol", kRepaired,                          \
    "a kernel whose kernel_id has no rocpd_info_kernel_symbol row; named <kernel ID>")            \
  X(kRocpdSampleWithoutEvent, "rocpd.sample_without_event", kDropped,                             \
    "a rocpd_sample row whose event_id names no rocpd_event row")                                 \
  X(kRocprofTableWithoutTimestamps, "rocprof.table_without_timestamps", kDropped,                 \
    "a rocprof results.db table without BeginNs/EndNs columns; the table is skipped")             \
  X(kRocprofCsvBadTimestamp, "rocprof_csv.bad_timestamp", kDropped,                               \
    "a rocprof results.csv row whose BeginNs/EndNs is not an integer")                            \
  X(kRocprofStatsBadRow, "rocprof_stats.bad_row", kDropped,                                       \
    "a rocprof stats CSV row whose Calls/TotalDurationNs is not an integer")                      \
  X(kRocprofJsonBadTs, "rocprof_json.bad_ts", kDropped,                                           \
    "a rocprof JSON event without a usable BeginNs/EndNs or ts")                                  \
  X(kRocprofRawBadLine, "rocprof_raw.bad_line", kDropped,                                         \
    "a line of a rocprof raw trace (hcc_ops_trace.txt, hip_api_trace.txt) that does not parse")   \
  X(kRocprofv3UnknownKernelId, "rocprofv3.unknown_kernel_id", kRepaired,                          \
    "a dispatch whose kernel_id is not in kernel_symbols; named <kernel ID>")                     \
  X(kRocprofv3CsvBadTimestamp, "rocprofv3_csv.bad_timestamp", kDropped,                           \
    "a rocprofv3 CSV row whose Start/End_Timestamp is not a non-negative integer")                \
  X(kRocprofv3CsvBadAddress, "rocprofv3_csv.bad_address", kDropped,                               \
    "a rocprofv3 memory-allocation row whose Address is not a hexadecimal number")                \
  X(kRocprofv3CsvUnreadableSibling, "rocprofv3_csv.unreadable_sibling", kDropped,                 \
    "another CSV of the same run (a table beside the named file) could not be read")              \
  X(kRpdBadMonitorValue, "rpd.bad_monitor_value", kDropped,                                       \
    "a rocpd_monitor sample whose value is not a number")                                         \
  X(kRpdExtAutogradapiColumns, "rpd.ext_autogradapi_columns", kDropped,                           \
    "ext_autogradapi lacks api_ptr_id/autogradName_id; the table is ignored")                     \
  X(kRpdExtTableColumns, "rpd.ext_table_columns", kDropped,                                       \
    "a gpuscope ext_ table of an .rpd lacks columns; the table is ignored")                       \
  X(kRpdPythonFramesDamaged, "rpd.python_frames_damaged", kDropped,                               \
    "a packed row of Python frames of an .rpd breaks off; the frames before the break are kept")  \
  X(kSqliteReadError, "sqlite.read_error", kRepaired,                                             \
    "reading a row of an SQLite trace failed (a damaged page, an oversized value); a name it "    \
    "held is shown as <unreadable string N>")                                                     \
  X(kSqliteViewReplaced, "sqlite.view_replaced", kRepaired,                                       \
    "a view of a rocpd database that is no plain read of its table (a crafted file's) is read "   \
    "from its one base table <view>_<uuid> instead; its definition is never run")

enum class ProblemKind : uint8_t {
#define GPUSCOPE_PROBLEM_ENUM(id, name, effect, what) id,
  GPUSCOPE_PROBLEM_KINDS(GPUSCOPE_PROBLEM_ENUM)
#undef GPUSCOPE_PROBLEM_ENUM
};

struct ProblemKindInfo {
  ProblemKind kind;
  std::string_view name;
  ProblemEffect effect;
  std::string_view what;
};

inline constexpr ProblemKindInfo kProblemKinds[] = {
#define GPUSCOPE_PROBLEM_INFO(id, name, effect, what) \
  {ProblemKind::id, name, ProblemEffect::effect, what},
    GPUSCOPE_PROBLEM_KINDS(GPUSCOPE_PROBLEM_INFO)
#undef GPUSCOPE_PROBLEM_INFO
};

constexpr const ProblemKindInfo& Info(ProblemKind k) {
  return kProblemKinds[static_cast<size_t>(k)];
}
constexpr std::string_view ProblemKindName(ProblemKind k) { return Info(k).name; }
// "dropped", "repaired", "kept".
std::string_view ProblemEffectName(ProblemEffect e);

}  // namespace gpuscope::model
