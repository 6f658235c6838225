#pragma once
// Stalls: the largest intervals in which a GPU sat idle between two of its ops, over the whole
// trace (not only the steady window: a stall is never hidden by the choice of window), with what
// the host was doing meanwhile.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "analysis/steps/one_time.h"
#include "model/trace.h"

namespace gpuscope::analysis {

struct Stall {
  int device = -1;
  int64_t start_ns = 0, dur_ns = 0;
  bool in_window = false;  // overlaps the steady window
  // The one-time cost that holds most of it ("module loading", steps/one_time.h); empty: none.
  // Such a stall is the warm-up finding's, outside the window's steady part.
  std::string one_time;
  // How long the op that ended the stall sat in the queue of the idle GPU (from its launch or the
  // stall's start, whichever is later); about 0 when the GPU waited for the host to launch it.
  int64_t queued_ns = 0;
  std::string host;  // what the host was doing, in words
  Where where;       // where in the program (the host call/op during the stall)
};

// The `count` largest idle intervals of at least `min_ns` (largest first); `one_time`: the
// window's one-time costs. An op is queued from its launch call's return, never during a long
// launch call (a module loading: the call's time, not the GPU's).
std::vector<Stall> FindStalls(const model::Trace& t, const Attributor& at, int64_t window_start,
                              int64_t window_end, size_t count, int64_t min_ns,
                              const OneTime& one_time = {});

}  // namespace gpuscope::analysis
