#pragma once
// Meanings of the names ROCm tools write, shared by every ROCm importer so that one kernel,
// copy or API call means the same whichever tool recorded it.

#include <string_view>

#include "format/rpd_ext.h"
#include "model/enums.h"

namespace gpuscope::import::rocm {

// What a GPU operation is, from its op type / operation name.
enum class OpClass { kKernel, kCopy, kFill, kOther };

// Classifies a CLR command kind (rpd opType: "KernelExecution", "Task", "CopyHostToDevice",
// "FillBuffer", "Marker", ...), a rocprofiler-sdk operation ("MEMORY_COPY_HOST_TO_DEVICE") or a
// CUPTI-backend rpd opType ("Memcpy", "Memset").
OpClass ClassifyOp(std::string_view op_type);

// Copy direction from any spelling: "CopyHostToDevice", "MEMORY_COPY_DEVICE_TO_HOST",
// "HOST_TO_DEVICE" (ROCm 6.2), "CopyDeviceToDevice2D"; kOther when it does not say.
model::MemopKind CopyDirection(std::string_view name);

// The name the PyTorch profiler gives a copy of that direction on ROCm ("Memcpy HtoD (Host ->
// Device)"), so that names compare across tools. ROCm tracers never record pinning: the host
// side is "Host" (unknown pinning), never "Pageable".
std::string_view CopyName(model::MemopKind kind);
void CopyEnds(model::MemopKind kind, model::MemoryKind* src, model::MemoryKind* dst);

// HSA calls (hsa_*) vs HIP runtime calls.
model::ApiDomain ApiDomainOf(std::string_view api_name);

// rpd tracer self-overhead rows recorded as API calls: format/rpd_ext.h (one list, the writer
// needs it too).
using format::rpd_ext::IsRpdOverheadApi;

}  // namespace gpuscope::import::rocm
