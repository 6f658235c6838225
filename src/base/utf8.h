#pragma once
// UTF-8 validation: the length of one well-formed sequence, and whether a whole string is clean
// (no NUL, no malformed, overlong or surrogate sequence) - what JSON output and the validator
// check names against.

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuscope::base {

// The length (1-4) of the well-formed UTF-8 sequence starting at s[i], or 0 when the bytes there
// are not UTF-8 (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
size_t Utf8SequenceLength(std::string_view s, size_t i);
// True when every byte of `s` is well-formed UTF-8 and none is NUL.
bool IsCleanUtf8(std::string_view s);

// The one escaping of text bound for a terminal or a text/CSV table (every view, the CSV of
// every result table): C0 controls but newline and tab, DEL and bytes that are not UTF-8 as
// "\x1b"; C1 controls (U+0080..U+009F) and bidirectional controls (U+061C, U+200E/F,
// U+202A..U+202E, U+2066..U+2069) as "\u202e". A name or path cannot move the cursor, clear the
// screen, retitle the terminal or reorder what is shown after it.
std::string EscapeControl(std::string_view text);
// True when EscapeControl would change `s` (what the validator counts as invalid.name_control).
bool HasControl(std::string_view s);

}  // namespace gpuscope::base
