// Enum name tables: a value's name, a name's value, the fallback outside the table.
#include "base/enum_names.h"

#include <gtest/gtest.h>

namespace gpuscope::base {
namespace enum_names_test {  // this file's helpers, apart in a unity build
namespace {

enum class Colour { kRed, kGreen, kBlue };
constexpr std::string_view kColourNames[] = {"red", "green", "blue"};
static_assert(NamesEvery(kColourNames, Colour::kBlue));
static_assert(!NamesEvery(kColourNames, Colour::kGreen));

TEST(EnumNames, NameOfEachValueAndFallbackOutsideTheTable) {
  EXPECT_EQ(NameOf(kColourNames, Colour::kRed, "?"), "red");
  EXPECT_EQ(NameOf(kColourNames, Colour::kBlue, "?"), "blue");
  EXPECT_EQ(NameOf(kColourNames, static_cast<Colour>(7), "?"), "?");
}

TEST(EnumNames, ValueNamedReadsExactNamesOnly) {
  Colour c = Colour::kRed;
  ASSERT_TRUE(ValueNamed(kColourNames, "green", &c));
  EXPECT_EQ(c, Colour::kGreen);
  c = Colour::kRed;
  EXPECT_FALSE(ValueNamed(kColourNames, "Green", &c));
  EXPECT_FALSE(ValueNamed(kColourNames, "", &c));
  EXPECT_EQ(c, Colour::kRed);  // untouched on a miss
}

}  // namespace
}  // namespace enum_names_test
}  // namespace gpuscope::base
