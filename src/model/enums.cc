#include "model/enums.h"

#include "model/tables.h"

namespace gpuscope::model {

std::string_view MemopKindName(MemopKind k) {
  switch (k) {
    case MemopKind::kHtoD:
      return "HtoD";
    case MemopKind::kDtoH:
      return "DtoH";
    case MemopKind::kDtoD:
      return "DtoD";
    case MemopKind::kHtoH:
      return "HtoH";
    case MemopKind::kPtoP:
      return "PtoP";
    case MemopKind::kMemset:
      return "Memset";
    case MemopKind::kOther:
      return "Other";
  }
  return "Other";
}

bool ParseMemopKind(std::string_view text, MemopKind* out) {
  for (int k = 0; k < kMemopKindCount; ++k) {
    if (MemopKindName(static_cast<MemopKind>(k)) == text) {
      *out = static_cast<MemopKind>(k);
      return true;
    }
  }
  return false;
}

std::string_view MemoryKindName(MemoryKind k) {
  switch (k) {
    case MemoryKind::kUnknown:
      return "unknown";
    case MemoryKind::kPageable:
      return "pageable";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kDevice:
      return "device";
    case MemoryKind::kArray:
      return "array";
    case MemoryKind::kManaged:
      return "managed";
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kDeviceStatic:
      return "device static";
    case MemoryKind::kManagedStatic:
      return "managed static";
  }
  return "unknown";
}

MemoryKind ParseMemoryKind(std::string_view t) {
  if (t == "Pageable") return MemoryKind::kPageable;
  if (t == "Pinned") return MemoryKind::kPinned;
  if (t == "Device") return MemoryKind::kDevice;
  if (t == "Array") return MemoryKind::kArray;
  if (t == "Managed") return MemoryKind::kManaged;
  if (t == "Host") return MemoryKind::kHost;
  if (t == "Device Static") return MemoryKind::kDeviceStatic;
  if (t == "Managed Static") return MemoryKind::kManagedStatic;
  return MemoryKind::kUnknown;
}

std::string_view MemoryKindTitle(MemoryKind k) {
  switch (k) {
    case MemoryKind::kUnknown:
      return "";
    case MemoryKind::kPageable:
      return "Pageable";
    case MemoryKind::kPinned:
      return "Pinned";
    case MemoryKind::kDevice:
      return "Device";
    case MemoryKind::kArray:
      return "Array";
    case MemoryKind::kManaged:
      return "Managed";
    case MemoryKind::kHost:
      return "Host";
    case MemoryKind::kDeviceStatic:
      return "Device Static";
    case MemoryKind::kManagedStatic:
      return "Managed Static";
  }
  return "";
}

bool ParseApiDomain(std::string_view text, ApiDomain* out) {
  for (ApiDomain d : {ApiDomain::kRuntime, ApiDomain::kDriver, ApiDomain::kHsa, ApiDomain::kOs}) {
    if (ApiDomainName(d) == text) {
      *out = d;
      return true;
    }
  }
  return false;
}

std::string_view ApiDomainName(ApiDomain d) {
  switch (d) {
    case ApiDomain::kRuntime:
      return "runtime";
    case ApiDomain::kDriver:
      return "driver";
    case ApiDomain::kHsa:
      return "hsa";
    case ApiDomain::kOs:
      return "os";
  }
  return "runtime";
}

uint8_t KernelWorkFlags(std::string_view name) {
  if (name.find("__amd_rocclr_copy") != std::string_view::npos) return kKernelIsCopy;
  if (name.find("__amd_rocclr_fill") != std::string_view::npos) return kKernelIsFill;
  return 0;
}

std::string_view VendorName(Vendor v) {
  switch (v) {
    case Vendor::kNvidia:
      return "NVIDIA";
    case Vendor::kAmd:
      return "AMD";
    case Vendor::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace gpuscope::model
