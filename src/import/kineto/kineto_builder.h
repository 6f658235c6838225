#pragma once
// KinetoBuilder: gives each parsed Kineto event its meaning in the model (kernel, copy, API
// call, CPU op, Python frame, ...). One builder per parallel segment, each writing its own
// Trace; what must be resolved across segments (metadata names, flows, clamped times) is kept
// in KinetoSideInfo and settled by FinishKinetoTrace once the segments are merged.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "import/kineto/kineto_event.h"
#include "import/kineto/op_args_cache.h"
#include "model/trace.h"

namespace gpuscope::import::kineto {

struct KinetoSideInfo {
  std::map<std::pair<std::string, std::string>, std::string> thread_names;
  std::map<std::string, std::string> process_names;
  std::vector<uint64_t> flow_starts;
  std::vector<uint64_t> flow_ends;
  uint64_t metadata_duplicates = 0;
  uint64_t zero_ts_events = 0;  // X events at ts 0 with dur 0 (Kineto's clamp)
  uint64_t timed_events = 0;
  int max_decimals = 0;                // most digits after the point seen in ts
  uint64_t rounded_ts = 0;             // ts with more than 3 decimals
  bool saw_legacy_categories = false;  // "Operator", "Kernel", ... (PyTorch 1.8)
  bool saw_hip_runtime = false;
  bool saw_cuda_runtime = false;

  void Merge(KinetoSideInfo&& other);
};

class KinetoBuilder {
 public:
  // `ns_digits`: the unit of ts and dur as base::ParseMicrosToNs takes it (3: microseconds, the
  // format's own; --time-unit changes it for files written in another unit).
  KinetoBuilder(model::Trace* trace, KinetoSideInfo* side, int ns_digits = 3)
      : trace_(trace), side_(side), ns_digits_(ns_digits) {}

  // `offset` is the byte offset of the event in the (decompressed) file, for messages.
  void Add(const KinetoEvent& ev, uint64_t offset);
  // An event that is not valid JSON (at `offset`, `what` says how): counted as a record and a
  // problem; the reader skips to the next event.
  void AddInvalid(uint64_t offset, std::string_view what);
  uint64_t events() const { return events_; }
  // Room in every column for `factor` times the events added so far (model::ReserveScaled).
  void ReserveScaled(double factor);

 private:
  void AddSlice(const KinetoEvent& ev, int64_t ts, int64_t dur);
  // An op or user annotation of the CPU, with its recorded call arguments.
  void AddCpuRange(const KinetoEvent& ev, int64_t ts, int64_t dur, bool op);
  void AddMetadata(const KinetoEvent& ev);
  // A [memory] event of a device allocator: a row of the memory table (false: not one; it stays
  // an instant).
  bool AddMemoryEvent(const KinetoEvent& ev, int64_t ts);
  void AddCounter(const KinetoEvent& ev, int64_t ts);
  // An instant's or counter's time in ns; nullopt (counted as a problem naming `kind`) when its
  // 'ts' is not a number.
  std::optional<int64_t> PointTime(const KinetoEvent& ev, uint64_t offset, std::string_view kind);
  void Problem(model::ProblemKind kind, uint64_t offset, std::string_view what);
  model::TrackId CpuTrack(const KinetoEvent& ev);
  model::TrackId GpuTrack(const KinetoEvent& ev);
  // A kernel's or copy's slice on its stream, with its correlation and device (the stream's
  // process id where the event names none).
  template <typename Row>
  Row GpuRow(const KinetoEvent& ev, int64_t ts, int64_t dur);

  model::Trace* trace_;
  KinetoSideInfo* side_;
  int ns_digits_ = 3;
  uint64_t events_ = 0;
  // One-entry cache: consecutive events usually share a thread or stream.
  struct TrackCache {
    std::string key;
    model::TrackId id = 0;
    bool valid = false;
    model::TrackId Get(model::Trace& trace, model::TrackKind kind, std::string_view pid,
                       std::string_view tid);
  };
  TrackCache cpu_cache_, gpu_cache_;
  OpArgsCache op_args_;
};

// Applies what the side info knows (thread/process names, flows, clamped ts) to the merged
// trace. Does not link; the importer calls model::LinkTrace afterwards.
void FinishKinetoTrace(model::Trace& trace, KinetoSideInfo& side);

}  // namespace gpuscope::import::kineto
