#pragma once
// Times as importers find them: unknown (a value the file does not give) and durations that
// must not overflow. All times are int64 nanoseconds on the trace's own clock.

#include <cstdint>

namespace gpuscope::model {

// A time the file does not give, or gives as something other than a number: importers store it
// as it is and the validation step (model/validate.h) drops the event and counts it, so that a
// missing value never becomes 0.
inline constexpr int64_t kUnknownTime = INT64_MIN;

// end - start, or kUnknownTime when either is unknown or the difference overflows. The result
// may be negative (an end before the start): the validation step decides what to do with it.
inline int64_t DurationBetween(int64_t start, int64_t end) {
  int64_t d = 0;
  if (start == kUnknownTime || end == kUnknownTime || __builtin_sub_overflow(end, start, &d))
    return kUnknownTime;
  return d;
}

// Whether an event's start and duration are usable before the validation step has run (importers
// that derive events from others' times must skip the ones it will drop).
inline bool TimesUsable(int64_t start, int64_t dur) {
  int64_t end = 0;
  return start != kUnknownTime && dur != kUnknownTime && dur >= 0 &&
         !__builtin_add_overflow(start, dur, &end);
}

}  // namespace gpuscope::model
