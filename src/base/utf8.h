#pragma once
// UTF-8 validation: the length of one well-formed sequence, and whether a whole string is clean
// (no NUL, no malformed, overlong or surrogate sequence) - what JSON output and the validator
// check names against.

#include <cstddef>
#include <string_view>

namespace gpuscope::base {

// The length (1-4) of the well-formed UTF-8 sequence starting at s[i], or 0 when the bytes there
// are not UTF-8 (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
size_t Utf8SequenceLength(std::string_view s, size_t i);
// True when every byte of `s` is well-formed UTF-8 and none is NUL.
bool IsCleanUtf8(std::string_view s);

}  // namespace gpuscope::base
