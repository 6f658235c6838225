#pragma once
// How long a name may be where it is shown (terminal, CSV and JSON views, the report): a name of
// 300 MB (a crafted trace) would otherwise be copied into every row, escaped and written whole,
// costing several times the input. Longer names are cut there and kept whole in converted
// traces; the validator counts them (invalid.name_length).

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuscope::base {

inline constexpr size_t kMaxShownName = 64 << 10;

// `name` itself, or its first kMaxShownName bytes (never cutting a UTF-8 sequence) and
// "...[cut: N bytes]".
inline std::string ShownName(std::string_view name) {
  if (name.size() <= kMaxShownName) return std::string(name);
  size_t keep = kMaxShownName;
  while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  return std::string(name.substr(0, keep)) + "...[cut: " + std::to_string(name.size()) + " bytes]";
}

}  // namespace gpuscope::base
