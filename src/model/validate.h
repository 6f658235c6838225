#pragma once
// The one check every imported event passes before anything reads it (called by the import
// registry between an importer and the linker): times present and numeric, end >= start,
// inside the trace's plausible clock range, sizes >= 0. Importers hand over what the file says
// (kUnknownTime for a time that is missing or not a number); this step decides what to keep.
// A bad event is dropped, or kept with the bad value marked unknown (a size), and counted as a
// named problem under "invalid.*" - never turned silently into 0 or 2^63.

#include <cstdint>
#include <string>

#include "model/trace.h"

namespace gpuscope::model {

// Tunables of the check, in one place (tests use the defaults).
struct ValidationOptions {
  // The plausible clock range is the central part of the events' start times (between these
  // quantiles) widened on each side by max(widen_factor x its width, widen_min_ns): one wild
  // value cannot move it, while real traces with long idle stretches stay inside.
  double core_low_quantile = 0.01;
  double core_high_quantile = 0.99;
  int64_t widen_factor = 100;
  int64_t widen_min_ns = 3600LL * 1000 * 1000 * 1000;  // one hour
  // A trace losing more than this fraction of its events to bad values is refused.
  double max_invalid_fraction = 0.5;
};

struct ValidationResult {
  uint64_t checked = 0;  // timed events looked at
  uint64_t dropped = 0;  // removed for a missing, inverted or implausible time
  int64_t range_lo = 0;  // the plausible clock range used (inclusive)
  int64_t range_hi = 0;
  std::string first_problem;  // the first dropped event, in words (for a refusal message)
  // True when so many events were bad that the trace is not worth reading (dropped /
  // checked > max_invalid_fraction).
  bool mostly_invalid = false;
};

// Validates and compacts every event table of an unlinked trace in place, counting each kind
// of bad value in t.problems.
ValidationResult ValidateEvents(Trace& t, const ValidationOptions& options = {});

}  // namespace gpuscope::model
