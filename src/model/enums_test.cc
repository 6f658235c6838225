// The model's enum names: every value named, names read back to their values, the profilers'
// memory-kind labels read as written.
#include "model/enums.h"

#include <gtest/gtest.h>

namespace gpuscope::model {
namespace enums_test {  // this file's helpers, apart in a unity build
namespace {

TEST(Enums, MemopKindNamesReadBack) {
  for (int i = 0; i < kMemopKindCount; ++i) {
    const auto k = static_cast<MemopKind>(i);
    MemopKind back = MemopKind::kOther;
    ASSERT_TRUE(ParseMemopKind(MemopKindName(k), &back)) << i;
    EXPECT_EQ(back, k);
  }
  EXPECT_EQ(MemopKindName(MemopKind::kHtoD), "HtoD");
  EXPECT_EQ(MemopKindName(MemopKind::kMemset), "Memset");
}

TEST(Enums, MemoryKindLabelsAsProfilersWriteThem) {
  EXPECT_EQ(ParseMemoryKind("Pageable"), MemoryKind::kPageable);
  EXPECT_EQ(ParseMemoryKind("Managed Static"), MemoryKind::kManagedStatic);
  EXPECT_EQ(ParseMemoryKind("pageable"), MemoryKind::kUnknown);
  EXPECT_EQ(ParseMemoryKind(""), MemoryKind::kUnknown);
  EXPECT_EQ(MemoryKindTitle(MemoryKind::kDeviceStatic), "Device Static");
  EXPECT_EQ(MemoryKindTitle(MemoryKind::kUnknown), "");
  EXPECT_EQ(MemoryKindName(MemoryKind::kPinned), "pinned");
  EXPECT_EQ(MemoryKindName(MemoryKind::kManagedStatic), "managed static");
}

TEST(Enums, ApiDomainsAndVendors) {
  for (ApiDomain d : {ApiDomain::kRuntime, ApiDomain::kDriver, ApiDomain::kHsa, ApiDomain::kOs}) {
    ApiDomain back = ApiDomain::kRuntime;
    ASSERT_TRUE(ParseApiDomain(ApiDomainName(d), &back));
    EXPECT_EQ(back, d);
  }
  ApiDomain d = ApiDomain::kRuntime;
  EXPECT_FALSE(ParseApiDomain("cuda", &d));
  EXPECT_EQ(ApiDomainName(ApiDomain::kHsa), "hsa");
  EXPECT_EQ(VendorName(Vendor::kNvidia), "NVIDIA");
  EXPECT_EQ(VendorName(Vendor::kAmd), "AMD");
  EXPECT_EQ(VendorName(Vendor::kUnknown), "unknown");
}

}  // namespace
}  // namespace enums_test
}  // namespace gpuscope::model
