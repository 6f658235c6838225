#include "model/enums.h"

#include <iterator>

#include "base/enum_names.h"
#include "model/tables.h"

namespace gpuscope::model {

namespace {

constexpr std::string_view kMemopKindNames[] = {"HtoD", "DtoH",   "DtoD", "HtoH",
                                                "PtoP", "Memset", "Other"};
static_assert(std::size(kMemopKindNames) == kMemopKindCount);

constexpr std::string_view kMemoryKindNames[] = {"unknown", "pageable",      "pinned",
                                                 "device",  "array",         "managed",
                                                 "host",    "device static", "managed static"};
static_assert(std::size(kMemoryKindNames) == kMemoryKindCount);

// As the profilers write them (nsys's labels, Kineto's memcpy names).
constexpr std::string_view kMemoryKindTitles[] = {"",       "Pageable",      "Pinned",
                                                  "Device", "Array",         "Managed",
                                                  "Host",   "Device Static", "Managed Static"};
static_assert(std::size(kMemoryKindTitles) == kMemoryKindCount);

constexpr std::string_view kApiDomainNames[] = {"runtime", "driver", "hsa", "os"};
static_assert(std::size(kApiDomainNames) == kApiDomainCount);

constexpr std::string_view kVendorNames[] = {"unknown", "NVIDIA", "AMD"};
static_assert(base::NamesEvery(kVendorNames, Vendor::kAmd));

}  // namespace

std::string_view MemopKindName(MemopKind k) { return base::NameOf(kMemopKindNames, k, "Other"); }

bool ParseMemopKind(std::string_view text, MemopKind* out) {
  return base::ValueNamed(kMemopKindNames, text, out);
}

std::string_view MemoryKindName(MemoryKind k) {
  return base::NameOf(kMemoryKindNames, k, "unknown");
}

MemoryKind ParseMemoryKind(std::string_view t) {
  MemoryKind k = MemoryKind::kUnknown;
  base::ValueNamed(kMemoryKindTitles, t, &k);
  return k;
}

std::string_view MemoryKindTitle(MemoryKind k) { return base::NameOf(kMemoryKindTitles, k, ""); }

bool ParseApiDomain(std::string_view text, ApiDomain* out) {
  return base::ValueNamed(kApiDomainNames, text, out);
}

std::string_view ApiDomainName(ApiDomain d) { return base::NameOf(kApiDomainNames, d, "runtime"); }

uint8_t KernelWorkFlags(std::string_view name) {
  if (name.find("__amd_rocclr_copy") != std::string_view::npos) return kKernelIsCopy;
  if (name.find("__amd_rocclr_fill") != std::string_view::npos) return kKernelIsFill;
  return 0;
}

std::string_view VendorName(Vendor v) { return base::NameOf(kVendorNames, v, "unknown"); }

bool ParseVendor(std::string_view text, Vendor* out) {
  return base::ValueNamed(kVendorNames, text, out);
}

}  // namespace gpuscope::model
