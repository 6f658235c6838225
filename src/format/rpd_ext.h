#pragma once
// gpuscope's additions to rocmProfileData's schema v2, written by output/rpd_writer and read
// back by import/rpd: what v2 cannot say goes into ext_gpuscope_* tables and gpuscope::* tags of
// rocpd_metadata, which rpd tools ignore.

#include <string_view>

#include "base/enum_names.h"
#include "model/enums.h"

namespace gpuscope::format::rpd_ext {

// Per API row: what kind of range a UserMarker is (op, annotation, python) or the API domain.
inline constexpr std::string_view kApiTable = "ext_gpuscope_api";
// Per copy op: direction, memory kinds and bytes.
inline constexpr std::string_view kOpTable = "ext_gpuscope_op";
// Per kernel op: launch dimensions when no rocpd_kernelapi row holds them (graph kernels).
inline constexpr std::string_view kKernelTable = "ext_gpuscope_kernel";
// Python frames, packed: a run of one thread's frames per row (format/rpd_python_frames.h).
inline constexpr std::string_view kPythonTable = "ext_gpuscope_python";
// Per op marker: the op's call arguments (shapes, types; model/op_args.h text).
inline constexpr std::string_view kArgsTable = "ext_gpuscope_args";
// GPU-side ranges (annotations, syncs), kept out of rocpd_op whose views count work.
inline constexpr std::string_view kGpuRangeTable = "ext_gpuscope_gpurange";

// A device allocator's events (PyTorch's [memory]): the host thread, the time, the GPU, bytes
// (> 0 allocated, < 0 freed), the totals after it (NULL: not recorded) and the block's address.
inline constexpr std::string_view kMemoryTable = "ext_gpuscope_memory";

// The tables as the writer creates them; the reader needs exactly these columns.
inline constexpr std::string_view kSchema = R"sql(
CREATE TABLE ext_gpuscope_api (api_ptr_id integer NOT NULL PRIMARY KEY, kind varchar(16) NOT NULL,
  external_id integer, python_id integer, python_parent_id integer);
CREATE TABLE ext_gpuscope_op (op_ptr_id integer NOT NULL PRIMARY KEY, copy_kind varchar(8) NOT NULL,
  src varchar(16) NOT NULL, dst varchar(16) NOT NULL, bytes integer);
CREATE TABLE ext_gpuscope_kernel (op_ptr_id integer NOT NULL PRIMARY KEY, gridX integer NOT NULL,
  gridY integer NOT NULL, gridZ integer NOT NULL, workgroupX integer NOT NULL, workgroupY integer NOT NULL,
  workgroupZ integer NOT NULL, groupSegmentSize integer NOT NULL);
CREATE TABLE ext_gpuscope_args (api_ptr_id integer NOT NULL PRIMARY KEY, args text NOT NULL);
CREATE TABLE ext_gpuscope_gpurange (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL,
  queueId integer NOT NULL, start integer NOT NULL, end integer NOT NULL, kind varchar(16) NOT NULL,
  name_id integer NOT NULL, correlation integer, waits_on_record integer, waits_on_stream integer);
CREATE TABLE ext_gpuscope_python (first_row integer NOT NULL PRIMARY KEY, pid integer NOT NULL,
  tid integer NOT NULL, frames integer NOT NULL, data blob NOT NULL);
CREATE TABLE ext_gpuscope_memory (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL,
  tid integer NOT NULL, ts integer NOT NULL, gpuId integer NOT NULL, bytes integer NOT NULL,
  allocated integer, reserved integer, addr integer);
)sql";

// The column lists both sides use (SELECT and INSERT in this order).
inline constexpr std::string_view kApiColumns =
    "api_ptr_id, kind, external_id, python_id, python_parent_id";
inline constexpr std::string_view kOpColumns = "op_ptr_id, copy_kind, src, dst, bytes";
inline constexpr std::string_view kKernelColumns =
    "op_ptr_id, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize";
inline constexpr std::string_view kArgsColumns = "api_ptr_id, args";
inline constexpr std::string_view kPythonColumns = "first_row, pid, tid, frames, data";
inline constexpr std::string_view kGpuRangeColumns =
    "gpuId, queueId, start, end, kind, name_id, correlation";
// A stream waiting on an event (Kineto's cuda_sync): the event-record call's correlation and the
// recording stream; files written before them lack these columns (read as no recorded wait).
inline constexpr std::string_view kGpuRangeWaitColumns = "waits_on_record, waits_on_stream";
// ext_gpuscope_api.kind of a CPU range's UserMarker row: its model::CpuRangeKind, in the enum's
// order (an API row's kind is its domain, model::ApiDomainName). Files written before Python
// frames were packed (kPythonTable) have them as UserMarker rows of kind kPythonFrameKind.
inline constexpr std::string_view kCpuRangeKinds[] = {"op", "annotation"};
static_assert(base::NamesEvery(kCpuRangeKinds, model::CpuRangeKind::kAnnotation));
inline constexpr std::string_view kPythonFrameKind = "python";
// ext_gpuscope_gpurange.kind: a range's model::GpuRangeKind, in the enum's order (a reader takes
// any other text for kOther).
inline constexpr std::string_view kGpuRangeKinds[] = {"annotation", "sync", "other"};
static_assert(base::NamesEvery(kGpuRangeKinds, model::GpuRangeKind::kOther));
inline constexpr std::string_view kMemoryColumns =
    "pid, tid, ts, gpuId, bytes, allocated, reserved, addr";

// Names the rpd tracer gives its own overhead rows in rocpd_api (rpd Logger::createOverheadRecord):
// readers leave them out, so a writer marks a real call with such a name in ext_gpuscope_api.
inline bool IsRpdOverheadApi(std::string_view n) {
  return n == "hcc_activity_callback" || n == "OpTable::writeRows" || n == "ApiTable::writeRows" ||
         n == "KernelApiTable::writeRows" || n == "CopyApiTable::writeRows" ||
         n == "MonitorTable::writeRows" || n == "rpdflush";
}

// rocpd_metadata tags. The source's path, format and clock of a converted trace:
inline constexpr std::string_view kTagSource = "gpuscope::source";
inline constexpr std::string_view kTagSourceFormat = "gpuscope::source_format";
inline constexpr std::string_view kTagClock = "gpuscope::clock";
// The tool that recorded the source, and the gpuscope command that wrote this file
// (format/written_by.h).
inline constexpr std::string_view kTagSourceProducer = "gpuscope::source_producer";
inline constexpr std::string_view kTagWrittenBy = "gpuscope::written_by";
// The source's rank and world size in a distributed job (absent when not known).
inline constexpr std::string_view kTagRank = "gpuscope::rank";
inline constexpr std::string_view kTagWorldSize = "gpuscope::world_size";
// Names rpd has no table for; the key's suffix is the device id, pid, or "pid/tid".
inline constexpr std::string_view kTagDeviceName = "gpuscope::device_name::";
inline constexpr std::string_view kTagDeviceVendor = "gpuscope::device_vendor::";
inline constexpr std::string_view kTagProcessName = "gpuscope::process_name::";
inline constexpr std::string_view kTagThreadName = "gpuscope::thread_name::";

}  // namespace gpuscope::format::rpd_ext
