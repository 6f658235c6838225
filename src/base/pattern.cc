#include "base/pattern.h"

#include <re2/re2.h>

namespace gpuscope::base {

StatusOr<Pattern> Pattern::Compile(const std::string& pattern, const std::string& what) {
  if (pattern.size() > kMaxLength) {
    return Status::Error(what + ": a pattern of " + std::to_string(pattern.size()) +
                         " characters (at most " + std::to_string(kMaxLength) + ")");
  }
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_max_mem(kMaxMemory);
  auto re = std::make_shared<const RE2>(pattern, opts);
  if (!re->ok()) {
    return Status::Error(what + ": not a regular expression (" + re->error() +
                         "; RE2 syntax: github.com/google/re2/wiki/Syntax)");
  }
  return Pattern(std::move(re));
}

bool Pattern::Search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace gpuscope::base
