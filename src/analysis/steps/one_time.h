#pragma once
// One-time costs: what a run pays once and never again in its steady state, found in any window
// (with steps or without: a one-pass forward has nothing to compare steps with, but its first
// calls can be compared with the later calls of the same op). The warm-up finding reports them;
// every other rule, the verdict, the critical path and the stalls see the window without them
// (the Context masks their time; the replay's baseline has them done before the window).
//
// A part is one of:
//   - a runtime call that only sets up (module and library loading, context and stream creation,
//     library handles: cudnnCreate, cublasCreate ...);
//   - in a one-pass window, an allocation call of 1 ms or more (a caching allocator's first
//     growth);
//   - a kernel's first launch call of 1 ms or more and 20x the median launch (lazy module
//     loading): a "launch call", never launch-to-start latency;
//   - compilation and autotuning: torch.compile / Triton / nvFuser / cuDNN-find ranges, the
//     compilers' Python frames, of 1 ms or more;
//   - a TorchScript first run: the host pause (no event on the thread) of 1 ms or more before
//     the first call of a scripted function (an op holding the profiling executor's
//     `fallback_function`), the graph being profiled and optimised;
//   - in a one-pass window, an op's first call with its arguments that takes 1 ms or more and
//     10x the median of the
//     op's other calls (cuDNN/MIOpen set-up and benchmark runs, lazy initialisation, a first
//     allocation), unless it waits for the GPU (a sync or blocking copy inside);
//   - without GPU ops recorded (the window is the whole trace): the host's start-up before its
//     first launch or copy call (building the model, initialising its parameters);
//   - (the recording's, not the program's: `before_trace`, steps/before_trace.h) an early op
//     launched onto the idle GPU that waited 1 ms or more and 20x the device's usual wait, the
//     host's work before it, and the host's waits before any recorded GPU op: the GPU ran work
//     the trace does not hold (a profiler started mid-step, an event recorded elsewhere).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

struct OneTimePart {
  int64_t start_ns = 0, end_ns = 0;
  model::TrackId track = 0;
  std::string what;                   // "module loading", "TorchScript first run", ...
  std::string op;                     // first calls: the op (empty otherwise)
  model::RowId call = model::kNoRow;  // the runtime call it is (kNoRow: host time on `track`)
  size_t first_kernel = SIZE_MAX;     // module loading: the kernel the call loaded
  // Not the program's cost but the recording's: the trace began while the GPU ran work it does
  // not hold, and an early op (kernel row or memop row) waited for it. Left out of the window
  // like the rest, not reported as warm-up.
  bool before_trace = false;
  size_t first_memop = SIZE_MAX;
};

struct OneTime {
  std::vector<OneTimePart> parts;                  // by start
  std::vector<std::pair<int64_t, int64_t>> spans;  // the time they cover, merged, sorted
  int64_t ns = 0;                                  // total of spans
  bool empty() const { return parts.empty(); }
  // Whether `ts` lies in a one-time span.
  bool Covers(int64_t ts) const;
  // Time of [a, b) covered by the spans.
  int64_t Within(int64_t a, int64_t b) const;
  // Per kind of part (`what`), its merged time and count, largest first.
  struct Kind {
    std::string what;
    int64_t ns = 0;
    uint64_t n = 0;
  };
  std::vector<Kind> Kinds() const;
  // "628.8 ms of module loading and a 295 ms TorchScript first run" (empty: none).
  std::string Text() const;
  // The program's own one-time costs: the parts that are not the recording's (before_trace).
  OneTime ProgramOnly() const;
};

// The one-time parts of [start, end): first calls are first in the whole trace. Allocation calls
// and first calls of ops are looked for only in a `one_pass` window (no steps found): with steps,
// the leading slow steps are already out of the window, and a long allocation or a slow call in
// a steady step is the steady state's (the allocator rule's, a data loader's).
OneTime FindOneTime(const model::Trace& trace, int64_t start, int64_t end, bool one_pass);

}  // namespace gpuscope::analysis
