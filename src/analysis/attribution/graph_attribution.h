#pragma once
// Graph attribution: the kernels a CUDA/HIP graph replays hang off one cudaGraphLaunch /
// hipGraphLaunch call, so nothing in the replay says which op, module or line of Python each
// belongs to. The capture of the graph does: between cudaStreamBeginCapture and
// cudaStreamEndCapture every launch call sits under its op and Python frame and names its kernel
// (grid, block). Matching a replay's kernel sequence to a captured launch sequence (a weighted
// longest common subsequence: same name, and same grid/block when both are known, scores more)
// carries the capture's op and frame over to each replayed kernel.
//
// Captures come from the analysed trace itself or from capture traces (`--capture FILE`).
// Replayed kernels without a match are attributed to the frame that called the graph launch
// and marked "in graph".

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "model/trace.h"

namespace gpuscope::analysis {

// The framework op with a work model around a captured launch (analysis/work/work_models.h), so
// that the roofline can price the replayed kernels: its name, recorded args and which call it was.
struct CapturedWork {
  std::string op;     // "" when no modelled op encloses the launch
  std::string args;   // model/op_args.h text
  int64_t call = -1;  // the op's row in the capture's trace (kernels of one call share it)
};

// One launch recorded during a capture: what it named and where in the program it was.
struct CapturedLaunch {
  std::string kernel;
  model::Dim3 grid{0, 0, 0}, block{0, 0, 0};
  Where where;  // op and Python frame of the launch call in the capture
  CapturedWork work;
};

struct CapturedGraph {
  std::string origin;  // "FILE, capture N"
  std::vector<CapturedLaunch> launches;
};

// The graphs captured in a trace: per host thread, the launch calls between a stream's
// BeginCapture and EndCapture calls whose kernel did not run (model::Trace::launch_args).
std::vector<CapturedGraph> FindCapturedGraphs(const model::Trace& t, const std::string& label);

struct GraphAttribution {
  std::vector<int32_t> kernel_origin;  // per kernel row: index into `origins`; -1 none
  std::vector<Where> origins;
  std::vector<CapturedWork> origin_work;  // per origin (call = graph index << 40 | capture row)
  uint64_t graph_launches = 0;            // graph launch calls with kernels in the trace
  uint64_t graph_kernels = 0;             // kernels they replayed
  uint64_t matched = 0;                   // of those, attributed through a capture
  size_t captures = 0;                    // captured graphs offered
  std::string Summary() const;  // "421 of 421 graph kernels (100.0%) matched to 1 capture"
};

// Attributes every kernel replayed by a graph launch in `t`, through the graphs captured in `t`
// itself and `given` (from capture traces of the same program).
GraphAttribution AttributeGraphKernels(const model::Trace& t, const Attributor& at,
                                       const std::vector<CapturedGraph>& given);

// The graph launch calls that replayed kernels in `t` (each counted once).
uint64_t CountGraphLaunches(const model::Trace& t);

}  // namespace gpuscope::analysis
