#include "import/common/rocm_names.h"

#include "base/enum_names.h"

namespace gpuscope::import::rocm {
namespace {

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

}  // namespace

OpClass ClassifyOp(std::string_view t) {
  if (t == "KernelExecution" || t == "Task" || t == "NativeKernel" || t == "KERNEL_DISPATCH")
    return OpClass::kKernel;
  if (t.rfind("Copy", 0) == 0 || t.rfind("MEMORY_COPY", 0) == 0 || t == "Memcpy" ||
      t == "SvmMemcpy") {
    return OpClass::kCopy;
  }
  if (t == "FillBuffer" || t == "FillImage" || t == "SvmMemFill" || t == "Memset")
    return OpClass::kFill;
  return OpClass::kOther;
}

model::MemopKind CopyDirection(std::string_view n) {
  using model::MemopKind;
  if (Contains(n, "HostToDevice") || Contains(n, "HOST_TO_DEVICE") || Contains(n, "BufferToImage"))
    return MemopKind::kHtoD;
  if (Contains(n, "DeviceToHost") || Contains(n, "DEVICE_TO_HOST") || Contains(n, "ImageToBuffer"))
    return MemopKind::kDtoH;
  if (Contains(n, "DeviceToDevice") || Contains(n, "DEVICE_TO_DEVICE") || n == "CopyImage")
    return MemopKind::kDtoD;
  if (Contains(n, "HostToHost") || Contains(n, "HOST_TO_HOST")) return MemopKind::kHtoH;
  if (Contains(n, "PeerToPeer") || Contains(n, "PEER")) return MemopKind::kPtoP;
  return MemopKind::kOther;
}

std::string_view CopyName(model::MemopKind kind) {
  static constexpr std::string_view kNames[] = {
      "Memcpy HtoD (Host -> Device)",   "Memcpy DtoH (Device -> Host)",
      "Memcpy DtoD (Device -> Device)", "Memcpy HtoH (Host -> Host)",
      "Memcpy PtoP (Device -> Device)", "Memcpy (unknown direction)",
      "Memcpy (unknown direction)"};
  static_assert(base::NamesEvery(kNames, model::MemopKind::kOther));
  return base::NameOf(kNames, kind, "Memcpy (unknown direction)");
}

void CopyEnds(model::MemopKind kind, model::MemoryKind* src, model::MemoryKind* dst) {
  using model::MemoryKind;
  switch (kind) {
    case model::MemopKind::kHtoD:
      *src = MemoryKind::kHost, *dst = MemoryKind::kDevice;
      return;
    case model::MemopKind::kDtoH:
      *src = MemoryKind::kDevice, *dst = MemoryKind::kHost;
      return;
    case model::MemopKind::kHtoH:
      *src = MemoryKind::kHost, *dst = MemoryKind::kHost;
      return;
    case model::MemopKind::kDtoD:
    case model::MemopKind::kPtoP:
      *src = MemoryKind::kDevice, *dst = MemoryKind::kDevice;
      return;
    default:
      *src = MemoryKind::kUnknown, *dst = MemoryKind::kUnknown;
  }
}

model::ApiDomain ApiDomainOf(std::string_view name) {
  return name.rfind("hsa_", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
}

}  // namespace gpuscope::import::rocm
