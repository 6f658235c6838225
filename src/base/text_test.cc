#include "base/text.h"

#include <gtest/gtest.h>

namespace gpuscope::base {
namespace {

TEST(Demangle, ItaniumNames) {
  EXPECT_EQ(Demangle("_Z10gemm_tile1PfS_i"), "gemm_tile1(float*, float*, int)");
  EXPECT_EQ(Demangle("void at::native::f<4>(int)"), "void at::native::f<4>(int)");
  EXPECT_EQ(Demangle("_Znot_really"), "_Znot_really");  // invalid: kept as is
}

TEST(ShortenName, FoldsTemplatesThenCutsTheMiddle) {
  std::string name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int, float)";
  EXPECT_EQ(ShortenName(name, 200), name);
  EXPECT_EQ(ShortenName(name, 60),
            "void at::native::vectorized_elementwise_kernel<\u2026>(\u2026)");
  std::string cut = ShortenName(name, 30);
  EXPECT_EQ(DisplayWidth(cut), 30u);
  EXPECT_NE(cut.find("\u2026"), std::string::npos);
}

TEST(Format, CountsAndDurations) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(123456), "123,456");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatDuration(999), "999 ns");
  EXPECT_EQ(FormatDuration(1500), "1.500 us");
  EXPECT_EQ(FormatDuration(2500000000), "2.500 s");
  EXPECT_EQ(FormatBytes(1000000), "1.0 MB");
}

}  // namespace
}  // namespace gpuscope::base
