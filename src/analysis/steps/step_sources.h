#pragma once
// Where steps come from (internal to steady_state.cc): each function returns the steps one
// source finds, or none. See steady_state.h for the order in which they are tried.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis::internal {

struct StepSpan {
  int64_t start_ns = 0, dur_ns = 0;
  std::string label;  // the annotation / frame that marks it
  model::TrackId track = 0;
};

struct StepSource {
  std::string source;  // how the steps were found, in words
  std::vector<StepSpan> spans;
};

// What a serving-step annotation says of its step.
struct ServingLabel {
  bool serving = false;  // the name is a known serving-step annotation
  std::string family;    // "vllm execute", "sglang step"
  std::string phase;     // "prefill", "decode", "mixed", "" unknown
  int64_t tokens = -1;   // tokens processed, -1 unknown
};
ServingLabel ParseServingLabel(std::string_view name);

// Work started on each host track, sorted by start, with its weight summed: the test of "a step
// encloses the work". kGpuLaunches: the host calls that launched GPU work, each weighted by the
// GPU ops it launched (a graph launch by its kernels). kCpuOpTime: the outermost CPU ops (in no
// other op), each weighted by its time in ns (a run without GPU work: a CPU-only run).
class WorkIndex {
 public:
  enum class Work { kGpuLaunches, kCpuOpTime };
  explicit WorkIndex(const model::Trace& t, Work work = Work::kGpuLaunches);
  size_t CountIn(model::TrackId track, int64_t start, int64_t end) const;
  size_t total() const { return total_; }

 private:
  std::vector<std::vector<int64_t>> by_track_;
  std::vector<std::vector<size_t>> prefix_;  // the weight of the first k on the track
  size_t total_ = 0;
};

StepSource ServingSteps(const model::Trace& t, const WorkIndex& launches);
StepSource RepeatedAnnotationSteps(const model::Trace& t, const WorkIndex& launches,
                                   size_t min_repeats);
// Without GPU launches in the trace (a CPU-only run), the frames are weighed by the CPU op time
// they enclose instead (WorkIndex::Work::kCpuOpTime).
StepSource PythonLoopSteps(const model::Trace& t, const WorkIndex& launches, size_t min_repeats);
// Starts of the host events that can end a step or a pass, per host track, sorted by start: the
// data loader's calls and blocking calls (a synchronize, a copy that is not asynchronous).
struct HostMarks {
  std::unordered_map<model::TrackId, std::vector<int64_t>> loader_starts;
  std::unordered_map<model::TrackId, std::vector<int64_t>> sync_starts;

  explicit HostMarks(const model::Trace& t);
  // The first start in [from, to) on `track`, or -1.
  static int64_t FirstIn(const std::unordered_map<model::TrackId, std::vector<int64_t>>& m,
                         model::TrackId track, int64_t from, int64_t to);
};

// Steps where nothing marks them (step_blocks.cc): the kernels launched in [start, end), in
// launch order, split where the launching thread calls the data loader or blocks (a synchronize,
// a copy that is not asynchronous) or a new graph launch replays them. The pieces are steps when
// there are at least min_repeats, most are within 2x of the median kernel count, and something
// says a piece is a pass over the model rather than a layer: the data loader opens most of
// them, most are one whole graph replay each, or a typical one holds a repeating block (layers).
// A layer that synchronizes (a MoE layer reading its routing with .item()) holds no repeating
// block of its own, so its layers stay structure.
StepSource BlockSteps(const model::Trace& t, int64_t start, int64_t end, size_t min_repeats);

// The smallest period p of a name sequence (every name equal to the one p before it for at
// least 90% of the sequence, at least min_repeats periods, at least two distinct names in a
// period); 0 when there is none.
size_t KernelPeriod(const std::vector<model::StringId>& names, size_t min_repeats);

}  // namespace gpuscope::analysis::internal
