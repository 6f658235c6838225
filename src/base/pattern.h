#pragma once
// A regular expression matched in time linear in the text and without recursion (RE2), for
// patterns a user types (`whatif --kernels REGEX=X`): std::regex recurses per character (a
// 30,000-character name overflowed the stack) and backtracks exponentially ('(a+)+$').

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace re2 {
class RE2;
}

namespace gpuscope::base {

class Pattern {
 public:
  // Longest pattern accepted, and the memory its compiled program may take.
  static constexpr size_t kMaxLength = 1000;
  static constexpr int64_t kMaxMemory = 8 << 20;

  // The compiled pattern (RE2's syntax: POSIX extended and Perl classes, no backreferences), or
  // one line saying what is wrong with it (`what` names where it came from).
  static StatusOr<Pattern> Compile(const std::string& pattern, const std::string& what);

  // True when the pattern matches somewhere in `text` (a search, not a whole-text match).
  bool Search(std::string_view text) const;

 private:
  explicit Pattern(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace gpuscope::base
