#pragma once
// The recording's start (issue 50): a trace that began while the GPU still ran work it does not
// hold (a profiler started mid-step; a stream waiting on an event recorded outside the trace)
// shows an early op waiting on an idle GPU, and the host waiting in syncs, with nothing recorded
// running. That wait is no cost of the program: it is left out of the window with the one-time
// costs (OneTimePart::before_trace), named by the window line, priced by no finding.

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/steps/one_time.h"
#include "model/trace.h"

namespace gpuscope::analysis {

inline constexpr std::string_view kBeforeTraceWhat = "waiting for GPU work the trace does not hold";
// The launching thread's own work before that wait (it ran beside the work the trace lacks).
inline constexpr std::string_view kBesideBeforeTraceWhat =
    "host work beside GPU work the trace does not hold";

// The parts in [start, end), each before_trace. Per device, its first op launched onto the idle
// device that stayed idle for 1 ms or more, whose wait began within its own length of the trace's
// start, when that wait is 20x the device's usual wait for an idle GPU (the median wait of the ops
// launched onto an idle device once it ran, at least their least wait: clocks that disagree lift
// every wait): from its launch call's start (a blocking call: one nanosecond after, so that the
// call stays the steady state's) or end (a call that returned before its op ran), with the
// launching thread's time from the window's start to the call (it ran beside the unseen work).
// Then the host's syncs and blocking copies of 1 ms or more before any recorded GPU op ran (on
// the host's clock). None when no GPU op is recorded: then the whole GPU side is missing.
std::vector<OneTimePart> FindWaitsBeforeTrace(const model::Trace& t, int64_t start, int64_t end);

}  // namespace gpuscope::analysis
