#pragma once
// Names of an enum's values as a table indexed by the value, where a switch per enum would repeat
// `case ...: return "...";` for every enum. The enum's values must run from 0 in declaration
// order; each table is checked against its enum's last value where it is defined.

#include <cstddef>
#include <string_view>

namespace gpuscope::base {

// names[e], or `otherwise` for a value outside the table.
template <typename E, size_t N>
constexpr std::string_view NameOf(const std::string_view (&names)[N], E e,
                                  std::string_view otherwise) {
  const auto i = static_cast<size_t>(e);
  return i < N ? names[i] : otherwise;
}

// The value whose name is `text` (exactly), or false.
template <typename E, size_t N>
constexpr bool ValueNamed(const std::string_view (&names)[N], std::string_view text, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

// True when `names` has one entry per value up to and including `last`.
template <typename E, size_t N>
constexpr bool NamesEvery(const std::string_view (&)[N], E last) {
  return N == static_cast<size_t>(last) + 1;
}

}  // namespace gpuscope::base
