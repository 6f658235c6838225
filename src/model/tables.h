#pragma once
// The event tables of the trace model, stored in columns (one std::vector per field).
//
// Memory per event is a decision, not an accident: each table has a Row struct holding
// exactly one event's fields, and a static_assert below fixes its size. A table spends at
// most sizeof(Row) bytes per event (columns have no padding). The budget comes from the core
// requirement: a 1 GB Kineto trace (~3.5 M events) must import in < 0.5 GB of RAM.
//
// All times are int64 nanoseconds on the trace's own clock (see TraceMetadata::clock).

#include <array>
#include <cstdint>
#include <vector>

#include "model/enums.h"
#include "model/ids.h"
#include "model/times.h"

namespace gpuscope::model {

// Columns common to every event that has a start and a duration.
struct SliceColumns {
  std::vector<int64_t> start_ns;
  std::vector<int64_t> dur_ns;
  std::vector<StringId> name;
  std::vector<TrackId> track;

  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }

 protected:
  void AppendSlice(int64_t start, int64_t dur, StringId n, TrackId t) {
    start_ns.push_back(start);
    dur_ns.push_back(dur);
    name.push_back(n);
    track.push_back(t);
  }
  template <typename F>
  void ForEachSliceColumn(F&& f) {
    f(start_ns);
    f(dur_ns);
    f(name);
    f(track);
  }
};

// A row of a slice table (KernelRow, ApiRow, ...) with its times, name and track; its other
// fields as the Row defaults them.
template <typename Row>
Row MakeSlice(int64_t start, int64_t dur, StringId name, TrackId track) {
  Row row;
  row.start_ns = start;
  row.dur_ns = dur;
  row.name = name;
  row.track = track;
  return row;
}

using Dim3 = std::array<uint32_t, 3>;

// Kernel flags: work that HIP/CUDA runtimes do with kernels on behalf of a copy or fill.
inline constexpr uint8_t kKernelIsCopy = 1;
inline constexpr uint8_t kKernelIsFill = 2;

// One GPU kernel dispatch.
struct KernelRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t correlation = kNoCorrelation;
  StringId name = 0;
  TrackId track = 0;
  Dim3 grid{0, 0, 0};
  Dim3 block{0, 0, 0};
  uint32_t registers = 0;
  uint32_t shared_mem = 0;
  RowId launch = kNoRow;  // ApiTable row of the launching call (set by the linker)
  int16_t device = -1;
  uint8_t flags = 0;
};
static_assert(sizeof(KernelRow) <= 80, "kernel events must stay within 80 bytes each");

class KernelTable : public SliceColumns {
 public:
  std::vector<uint64_t> correlation;
  std::vector<Dim3> grid;
  std::vector<Dim3> block;
  std::vector<uint32_t> registers;
  std::vector<uint32_t> shared_mem;
  std::vector<RowId> launch;
  std::vector<int16_t> device;
  std::vector<uint8_t> flags;

  void Append(const KernelRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    correlation.push_back(r.correlation);
    grid.push_back(r.grid);
    block.push_back(r.block);
    registers.push_back(r.registers);
    shared_mem.push_back(r.shared_mem);
    launch.push_back(r.launch);
    device.push_back(r.device);
    flags.push_back(r.flags);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(correlation), f(grid), f(block), f(registers), f(shared_mem), f(launch), f(device), f(flags);
  }
};

// One memory copy or memset executed by a GPU (or its DMA engines).
struct MemopRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t correlation = kNoCorrelation;
  int64_t bytes = -1;  // -1 = the tool did not record the size (never shown as 0)
  StringId name = 0;
  TrackId track = 0;
  RowId launch = kNoRow;
  int16_t device = -1;
  MemopKind kind = MemopKind::kOther;
  MemoryKind src = MemoryKind::kUnknown;
  MemoryKind dst = MemoryKind::kUnknown;
};
static_assert(sizeof(MemopRow) <= 56, "memory operations must stay within 56 bytes each");

class MemopTable : public SliceColumns {
 public:
  std::vector<uint64_t> correlation;
  std::vector<int64_t> bytes;
  std::vector<RowId> launch;
  std::vector<int16_t> device;
  std::vector<MemopKind> kind;
  std::vector<MemoryKind> src;
  std::vector<MemoryKind> dst;

  void Append(const MemopRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    correlation.push_back(r.correlation);
    bytes.push_back(r.bytes);
    launch.push_back(r.launch);
    device.push_back(r.device);
    kind.push_back(r.kind);
    src.push_back(r.src);
    dst.push_back(r.dst);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(correlation), f(bytes), f(launch), f(device), f(kind), f(src), f(dst);
  }
};

// One runtime or driver API call on a host thread (cudaLaunchKernel, hipMemcpyAsync, ...).
struct ApiRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t correlation = kNoCorrelation;
  uint64_t external_id = 0;
  StringId name = 0;
  TrackId track = 0;
  RowId enclosing_op = kNoRow;  // deepest CpuRangeTable row containing the call (linker)
  ApiDomain domain = ApiDomain::kRuntime;
};
static_assert(sizeof(ApiRow) <= 48, "API calls must stay within 48 bytes each");

class ApiTable : public SliceColumns {
 public:
  std::vector<uint64_t> correlation;
  std::vector<uint64_t> external_id;
  std::vector<RowId> enclosing_op;
  std::vector<ApiDomain> domain;

  void Append(const ApiRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    correlation.push_back(r.correlation);
    external_id.push_back(r.external_id);
    enclosing_op.push_back(r.enclosing_op);
    domain.push_back(r.domain);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(correlation), f(external_id), f(enclosing_op), f(domain);
  }
};

// CPU-side ranges: framework ops (aten::mm) and user annotations (record_function, roctx,
// NVTX, ProfilerStep#N).
struct CpuRangeRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t external_id = 0;
  StringId name = 0;
  TrackId track = 0;
  RowId parent = kNoRow;        // enclosing CPU range on the same thread (linker)
  RowId python_frame = kNoRow;  // innermost enclosing Python frame (linker)
  StringId args = 0;            // what the op was called with (model/op_args.h); 0 = not recorded
  uint16_t depth = 0;
  CpuRangeKind kind = CpuRangeKind::kOp;
};
static_assert(sizeof(CpuRangeRow) <= 48, "CPU ranges must stay within 48 bytes each");

class CpuRangeTable : public SliceColumns {
 public:
  std::vector<uint64_t> external_id;
  std::vector<RowId> parent;
  std::vector<RowId> python_frame;
  std::vector<StringId> args;
  std::vector<uint16_t> depth;
  std::vector<CpuRangeKind> kind;

  void Append(const CpuRangeRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    external_id.push_back(r.external_id);
    parent.push_back(r.parent);
    python_frame.push_back(r.python_frame);
    args.push_back(r.args);
    depth.push_back(r.depth);
    kind.push_back(r.kind);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(external_id), f(parent), f(python_frame), f(args), f(depth), f(kind);
  }
};

// Python interpreter frames ("model.py(12): forward") recorded by the profiler's stack tracer.
struct PythonFrameRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t python_id = -1;
  int64_t python_parent_id = -1;
  StringId name = 0;
  TrackId track = 0;
  RowId parent = kNoRow;  // enclosing frame (by parent id, else by containment)
};
static_assert(sizeof(PythonFrameRow) <= 48, "Python frames must stay within 48 bytes each");

class PythonFrameTable : public SliceColumns {
 public:
  std::vector<int64_t> python_id;
  std::vector<int64_t> python_parent_id;
  std::vector<RowId> parent;

  void Append(const PythonFrameRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    python_id.push_back(r.python_id);
    python_parent_id.push_back(r.python_parent_id);
    parent.push_back(r.parent);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(python_id), f(python_parent_id), f(parent);
  }
};

// Ranges on GPU stream tracks that are not work: GPU-side projections of user annotations,
// synchronization records (cuda_sync), profiler overhead.
struct GpuRangeRow {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  StringId name = 0;
  TrackId track = 0;
  uint64_t correlation = kNoCorrelation;
  // A stream waiting on an event (Kineto's cuda_sync "Stream Wait Event"): the correlation of the
  // event-record call and the stream that recorded it. kNoCorrelation / -1: not a recorded wait.
  uint64_t waits_on_record = kNoCorrelation;
  int64_t waits_on_stream = -1;
  GpuRangeKind kind = GpuRangeKind::kOther;
};

class GpuRangeTable : public SliceColumns {
 public:
  std::vector<uint64_t> correlation;
  std::vector<uint64_t> waits_on_record;
  std::vector<int64_t> waits_on_stream;
  std::vector<GpuRangeKind> kind;

  void Append(const GpuRangeRow& r) {
    AppendSlice(r.start_ns, r.dur_ns, r.name, r.track);
    correlation.push_back(r.correlation);
    waits_on_record.push_back(r.waits_on_record);
    waits_on_stream.push_back(r.waits_on_stream);
    kind.push_back(r.kind);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    ForEachSliceColumn(f);
    f(correlation), f(waits_on_record), f(waits_on_stream), f(kind);
  }
};

// Counter samples (hardware counters, memory totals): a named series of (time, value).
class CounterTable {
 public:
  std::vector<int64_t> ts_ns;
  std::vector<double> value;
  std::vector<StringId> name;
  std::vector<TrackId> track;

  size_t size() const { return ts_ns.size(); }
  void Append(int64_t ts, double v, StringId n, TrackId t) {
    ts_ns.push_back(ts), value.push_back(v), name.push_back(n), track.push_back(t);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    f(ts_ns), f(value), f(name), f(track);
  }
};

// Instant events ([memory] allocations, markers).
class InstantTable {
 public:
  std::vector<int64_t> ts_ns;
  std::vector<StringId> name;
  std::vector<TrackId> track;

  size_t size() const { return ts_ns.size(); }
  void Append(int64_t ts, StringId n, TrackId t) {
    ts_ns.push_back(ts), name.push_back(n), track.push_back(t);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    f(ts_ns), f(name), f(track);
  }
};

// One allocation or free by a framework's device allocator (PyTorch's [memory] events, recorded
// with profile_memory=True), on the host thread that made it, with the allocator's totals after
// it.
struct MemoryEventRow {
  int64_t ts_ns = 0;
  int64_t bytes = 0;       // > 0 allocated, < 0 freed
  int64_t allocated = -1;  // the device's allocated bytes after it (-1: not recorded)
  int64_t reserved = -1;   // the allocator's reserved (cached) bytes after it (-1: not recorded)
  uint64_t addr = 0;       // the block's address (0: not recorded)
  TrackId track = 0;       // the host thread
  int16_t device = -1;
};
static_assert(sizeof(MemoryEventRow) <= 48, "memory events must stay within 48 bytes each");

class MemoryEventTable {
 public:
  std::vector<int64_t> ts_ns;
  std::vector<int64_t> bytes;
  std::vector<int64_t> allocated;
  std::vector<int64_t> reserved;
  std::vector<uint64_t> addr;
  std::vector<TrackId> track;
  std::vector<int16_t> device;

  size_t size() const { return ts_ns.size(); }
  void Append(const MemoryEventRow& r) {
    ts_ns.push_back(r.ts_ns), bytes.push_back(r.bytes), allocated.push_back(r.allocated);
    reserved.push_back(r.reserved), addr.push_back(r.addr), track.push_back(r.track);
    device.push_back(r.device);
  }
  template <typename F>
  void ForEachColumn(F&& f) {
    f(ts_ns), f(bytes), f(allocated), f(reserved), f(addr), f(track), f(device);
  }
};

// The kernel a launch call named (Kineto on ROCm writes it in the call's args), kept only for
// calls whose kernel did not run in the trace: launches captured into a CUDA/HIP graph, which
// run later as the graph's kernels. Keyed by the call's correlation id (rows move when sorted).
struct LaunchArgRow {
  uint64_t correlation = kNoCorrelation;
  StringId kernel = 0;
  Dim3 grid{0, 0, 0};
  Dim3 block{0, 0, 0};
};

// Iterations found from markers (ProfilerStep#N): derived by the linker, never imported.
struct Iteration {
  int64_t number = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  RowId marker = kNoRow;  // CpuRangeTable row of the marker
};

}  // namespace gpuscope::model
