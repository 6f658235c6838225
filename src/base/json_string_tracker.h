#pragma once
// JsonStringTracker: the one place that knows where JSON strings begin and end in a byte-at-a-time
// scan (escapes included), for the scans that drop whitespace or skip values outside strings.

namespace gpuscope::base {

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
