#pragma once
// Values a GPU cannot have, in the device table and on kernel launches: more compute units than
// any chip carries, a warp size other than 32 or 64, more memory than any device holds, a block
// of more than 1024 threads, more registers per thread or shared memory per block than any
// architecture gives. Such a value comes from a damaged file or a writer's bug; read as real it
// would scale roofline peaks and occupancy figures by orders of magnitude. Each is replaced by
// "unknown" (0, or -1 for memory) and counted under impossible.device_property /
// impossible.launch_shape, the rest of the trace kept.

#include "model/trace.h"

namespace gpuscope::model {

// Limits well above every shipped GPU (MI355X: 256 CUs, 288 GB, 160 KiB LDS; B200: 148 SMs,
// 180 GB, 228 KiB shared memory; 1024 threads per block on both vendors, at most 512 VGPRs).
inline constexpr int32_t kMaxComputeUnits = 4096;
inline constexpr int64_t kMaxDeviceMemory = int64_t{1} << 44;  // 16 TiB
inline constexpr uint64_t kMaxBlockThreads = 1024;
inline constexpr uint32_t kMaxRegistersPerThread = 512;
inline constexpr uint32_t kMaxSharedMemPerBlock = 1u << 20;  // 1 MiB

// Checks t.devices and t.kernels in place (before linking or after: it reads no links).
void CheckDeviceValues(Trace& t);

}  // namespace gpuscope::model
