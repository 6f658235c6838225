#pragma once
// One time unit per table column set, so a column never mixes ms and us.

#include <cstdint>
#include <string>

#include "base/text.h"

namespace gpuscope::render {

struct Unit {
  std::string name;  // "us" / "ms" / "s"
  double ns_per_unit = 1e3;
  std::string Format(int64_t ns, int decimals = 3) const {
    return base::FormatFixed(static_cast<double>(ns) / ns_per_unit, decimals);
  }
};

// us while the largest value is under 10 s, ms up to 10,000 s, s beyond.
inline Unit PickUnit(int64_t largest_ns) {
  if (largest_ns >= 10'000'000'000'000) return Unit{"s", 1e9};
  if (largest_ns >= 10'000'000'000) return Unit{"ms", 1e6};
  return Unit{"us", 1e3};
}

}  // namespace gpuscope::render
