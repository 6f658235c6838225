#pragma once
// The public enumerations of an Nsight Systems export, as its ENUM_* tables hold them: ids as
// CUPTI (cupti_activity.h) and nsys number them, with nsys's names and labels. The nsys writer
// writes these tables from here; the nsys reader reads a file's own tables by name and falls back
// to these where an older export lacks one (memory kinds have no fallback: their numbering
// differs between CUPTI and nsys).

#include <cstdint>
#include <string_view>

namespace gpuscope::format::nsys {

// One row of an ENUM_* table.
struct EnumRow {
  int64_t id;
  std::string_view name;
  std::string_view label;
};

// ENUM_CUDA_MEMCPY_OPER: CUpti_ActivityMemcpyKind's numbers.
inline constexpr EnumRow kMemcpyOper[] = {{0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
                                          {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
                                          {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
                                          {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
                                          {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
                                          {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
                                          {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
                                          {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
                                          {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
                                          {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
                                          {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}};

// ENUM_CUDA_MEM_KIND (nsys's numbering; labels as model::ParseMemoryKind reads them).
inline constexpr EnumRow kMemKind[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
    {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
    {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
    {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
    {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}};

// ENUM_NSYS_EVENT_CLASS: the API call classes the writer uses.
inline constexpr int64_t kRuntimeClass = 0, kDriverClass = 1, kOsRuntimeClass = 27;
inline constexpr EnumRow kEventClass[] = {
    {kRuntimeClass, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"},
    {kDriverClass, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
    {kOsRuntimeClass, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime"}};

// ENUM_CUPTI_SYNC_TYPE: CUpti_ActivitySynchronizationType's numbers.
inline constexpr EnumRow kSyncType[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"}};

// ENUM_NSYS_EVENT_TYPE: the NVTX event types of NVTX_EVENTS (name and label alike).
inline constexpr int64_t kNvtxMark = 34, kNvtxPushPopRange = 59, kNvtxStartEndRange = 60;
inline constexpr EnumRow kNvtxEventType[] = {
    {33, "NvtxCategory", "NvtxCategory"},
    {kNvtxMark, "NvtxMark", "NvtxMark"},
    {39, "NvtxThread", "NvtxThread"},
    {kNvtxPushPopRange, "NvtxPushPopRange", "NvtxPushPopRange"},
    {kNvtxStartEndRange, "NvtxStartEndRange", "NvtxStartEndRange"},
    {64, "NvtxtCategory", "NvtxtCategory"},
    {65, "NvtxtMark", "NvtxtMark"},
    {70, "NvtxtPushPopRange", "NvtxtPushPopRange"},
    {71, "NvtxtStartEndRange", "NvtxtStartEndRange"},
    {75, "NvtxDomainCreate", "NvtxDomainCreate"},
    {76, "NvtxDomainDestroy", "NvtxDomainDestroy"}};

}  // namespace gpuscope::format::nsys
