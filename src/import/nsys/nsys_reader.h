#pragma once
// NsysReader: the rows of an Nsight Systems SQLite export into the model.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "base/sqlite_db.h"
#include "import/common/row_helpers.h"
#include "import/common/sqlite_columns.h"
#include "import/nsys/nsys_event_records.h"
#include "import/nsys/nsys_schema.h"
#include "model/trace.h"

namespace gpuscope::import::nsys {

// The names the readers of this folder use unqualified (an internal header).
using base::SqliteDb;
using model::MemopKind;
using model::MemoryKind;
using model::Trace;

// Reads one Nsight Systems export into a trace. Split by table family: nsys_reader.cc
// (metadata, devices, processes, tracks), nsys_cuda_reader.cc (runtime calls, kernels, copies,
// fills, syncs), nsys_host_reader.cc (NVTX ranges, OS runtime calls).
class NsysReader {
 public:
  NsysReader(const base::SqliteDb& db, model::Trace* trace)
      : db_(db), t_(*trace), strings_(db, trace, kStringSql) {}

  base::Status Read();

 private:
  static constexpr std::string_view kStringSql = "SELECT value FROM StringIds WHERE id = ?1";

  // A table to read, with its columns: none when the export lacks it (`what` not empty: noted
  // as not collected) or lacks a column every nsys version writes (the table is skipped as a
  // whole and counted, rather than read with made-up values).
  std::optional<ColumnSet> OpenTable(std::string_view table, std::string_view what,
                                     std::initializer_list<std::string_view> required);

  // Fails on a read error mid-table: that is a damaged file, not a recoverable event.
  base::Status Finish(const base::SqliteQuery& q) { return q.status(); }

  void ReadMetadata();

  void ReadDevices();

  void ReadProcessesAndThreads();

  int64_t CountCudaProcesses();

  // Correlation ids are unique per process only; with several CUDA processes the process key
  // goes into the high bits so that links never cross processes.
  uint64_t Correlation(int64_t corr, int64_t global) const;

  model::TrackId CpuTrack(int64_t global_tid);

  model::TrackId GpuTrack(int64_t device, int64_t stream, int64_t global_pid);

  // Times, device, stream track and correlation of a CUPTI GPU activity row whose SELECT list
  // starts with the GPU op columns (defined and used in nsys_cuda_reader.cc).
  template <typename Row>
  void ReadGpuOp(const base::SqliteQuery& q, Row* row);

  base::Status ReadRuntime();

  base::Status ReadKernels();

  model::MemoryKind MemKind(const base::SqliteQuery& q, int col);

  std::string_view MemKindLabel(const base::SqliteQuery& q, int col);

  base::Status ReadMemcpy();

  base::Status ReadMemset();

  // The file's CUDA event records (none without CUPTI_ACTIVITY_KIND_CUDA_EVENT).
  base::StatusOr<EventRecords> ReadEventRecords();

  base::Status ReadSync();

  base::Status ReadMemoryUsage();

  base::Status ReadNvtx();

  base::Status ReadOsRuntime();

  // Records that are not events of the model but are part of the file: counted so that
  // `info` accounts for them.
  void CountOtherRecords();
  void CountCuptiOverhead();
  // The tracer's warnings and errors about the processes with GPU work (nsys_diagnostics.cc).
  void ReadDiagnostics();

  const base::SqliteDb& db_;
  model::Trace& t_;
  StringIdMap strings_;
  EnumTable memcpy_oper_, mem_kind_, event_class_, sync_type_, event_type_;
  std::unordered_map<int64_t, int64_t> thread_names_;  // globalTid -> StringIds id
  std::unordered_map<int64_t, model::TrackId> cpu_tracks_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, model::TrackId> gpu_tracks_;
  bool multi_process_ = false;
};

}  // namespace gpuscope::import::nsys
