#pragma once
// Enumerations shared by importers and analyses: what a memory operation moved, where the
// host side lived, what a CPU range is. Names are what the tables print.

#include <cstdint>
#include <string_view>

namespace gpuscope::model {

enum class MemopKind : uint8_t { kHtoD, kDtoH, kDtoD, kHtoH, kPtoP, kMemset, kOther };
inline constexpr int kMemopKindCount = 7;
std::string_view MemopKindName(MemopKind k);

// Where one side of a copy lived. kHost = host memory whose pinning the tool did not record
// (ROCm tracers never say), which is different from kPageable.
enum class MemoryKind : uint8_t {
  kUnknown, kPageable, kPinned, kDevice, kArray, kManaged, kHost, kDeviceStatic, kManagedStatic
};
std::string_view MemoryKindName(MemoryKind k);
MemoryKind ParseMemoryKind(std::string_view text);

enum class CpuRangeKind : uint8_t { kOp, kAnnotation };
enum class ApiDomain : uint8_t { kRuntime, kDriver };
enum class GpuRangeKind : uint8_t { kAnnotation, kSync, kOther };
enum class TrackKind : uint8_t { kCpuThread, kGpuStream, kOther };
enum class Vendor : uint8_t { kUnknown, kNvidia, kAmd };
std::string_view VendorName(Vendor v);

}  // namespace gpuscope::model
