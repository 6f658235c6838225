#pragma once
// Enumerations shared by importers and analyses: what a memory operation moved, where the
// host side lived, what a CPU range is. Names are what the tables print.

#include <cstdint>
#include <string_view>

namespace gpuscope::model {

enum class MemopKind : uint8_t { kHtoD, kDtoH, kDtoD, kHtoH, kPtoP, kMemset, kOther };
inline constexpr int kMemopKindCount = static_cast<int>(MemopKind::kOther) + 1;
std::string_view MemopKindName(MemopKind k);
// Reads MemopKindName's spelling back; false (and *out unchanged) when `text` is none of them.
bool ParseMemopKind(std::string_view text, MemopKind* out);

// Where one side of a copy lived. kHost = host memory whose pinning the tool did not record
// (ROCm tracers never say), which is different from kPageable.
enum class MemoryKind : uint8_t {
  kUnknown,
  kPageable,
  kPinned,
  kDevice,
  kArray,
  kManaged,
  kHost,
  kDeviceStatic,
  kManagedStatic
};
inline constexpr int kMemoryKindCount = static_cast<int>(MemoryKind::kManagedStatic) + 1;
std::string_view MemoryKindName(MemoryKind k);
MemoryKind ParseMemoryKind(std::string_view text);
// The spelling ParseMemoryKind reads ("Pageable", "Device", ...); "" for kUnknown.
std::string_view MemoryKindTitle(MemoryKind k);

enum class CpuRangeKind : uint8_t { kOp, kAnnotation };
// kRuntime: CUDA runtime / HIP; kDriver: CUDA driver; kHsa: ROCm's HSA runtime (below HIP);
// kOs: OS runtime calls (nsys OSRT: read, ioctl, pthread_*), kept out of the GPU API table.
enum class ApiDomain : uint8_t { kRuntime, kDriver, kHsa, kOs };
inline constexpr int kApiDomainCount = static_cast<int>(ApiDomain::kOs) + 1;
std::string_view ApiDomainName(ApiDomain d);
// Reads ApiDomainName's spelling back; false when `text` is none of them.
bool ParseApiDomain(std::string_view text, ApiDomain* out);
enum class GpuRangeKind : uint8_t { kAnnotation, kSync, kOther };
enum class TrackKind : uint8_t { kCpuThread, kGpuStream, kOther };
enum class Vendor : uint8_t { kUnknown, kNvidia, kAmd };
std::string_view VendorName(Vendor v);
// Reads VendorName's spelling back ("NVIDIA", "AMD"); false when `text` is none of them.
bool ParseVendor(std::string_view text, Vendor* out);

// Kernel flags (kKernelIsCopy / kKernelIsFill) from a kernel name: the blit kernels that ROCm's
// runtime launches to implement copies and fills (__amd_rocclr_copyBuffer, ..._fillBuffer).
uint8_t KernelWorkFlags(std::string_view name);

}  // namespace gpuscope::model
