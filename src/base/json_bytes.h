#pragma once
// What a byte-at-a-time JSON scan needs to know of a byte, in one place: whether it is JSON
// whitespace, and (JsonStringTracker) where strings begin and end, escapes included. Used by the
// cursor, the streaming reader's squeezer and skipper, and the op-argument minifier.

namespace gpuscope::base {

// The four whitespace bytes JSON allows between tokens.
inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Where a byte-at-a-time scan stands with respect to JSON strings.
struct JsonStringTracker {
  bool in_string = false;
  bool escape = false;
  // Takes the next byte; true when it belongs to a string (its quotes included).
  bool Step(char c) {
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
      return true;
    }
    in_string = c == '"';
    return in_string;
  }
};

}  // namespace gpuscope::base
