#pragma once
// KinetoEvent: one element of "traceEvents", as written, before it is given a meaning.
// Views point into the reader's window (or the cursor's arena) and die with the next item;
// the builder interns what it keeps at once.

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "import/common/json_cursor.h"
#include "model/op_args.h"

namespace gpuscope::import::kineto {

struct KinetoEvent {
  char ph = 0;
  std::string_view cat, name;
  std::string_view pid, tid;  // number text or string contents ("Spans")
  std::string_view ts, dur;   // number text in microseconds
  std::string_view id;        // flow id text
  bool has_pid = false, has_tid = false;
  bool ts_is_string = false, dur_is_string = false;  // a string is never a valid time

  // args: the keys gpuscope uses, parsed; the whole object kept as a span for M and C events.
  const char* args_begin = nullptr;
  const char* args_end = nullptr;
  uint64_t correlation = 0;
  uint64_t external_id = 0;
  int64_t bytes = -1;
  int64_t device = -1;
  int64_t stream = -1;
  int64_t python_id = -1;
  int64_t python_parent_id = -1;
  // cuda_sync "Stream Wait Event": the cudaEventRecord call (correlation) whose event the stream
  // waits on, and the stream that recorded it; -1 when absent.
  int64_t wait_on_record = -1;
  int64_t wait_on_stream = -1;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers = 0;
  uint32_t shared_mem = 0;
  // String args that gpuscope's own JSON export adds so that a round trip keeps what the
  // Kineto names do not say: "copy kind" (HtoD, ...), "src kind"/"dst kind" (Pageable, ...),
  // "domain" (hsa, os). Empty when absent.
  std::string_view copy_kind, src_kind, dst_kind, domain;
  std::string_view kernel;  // the kernel a runtime launch call names ("kernel" arg)
  // Raw JSON of the op's call arguments (record_shapes): "Input Dims", "Input type",
  // "Concrete Inputs"; empty when absent. Stored through model::EncodeOpArgs.
  std::string_view input_dims, input_types, concrete_inputs;
  // The collective's description (record_param_comms: "Collective name", "Seq", ...), raw;
  // kept by the builder only when "Collective name" is among them.
  std::array<model::RawArg, std::size(model::kCollectiveArgKeys)> collective{};
  uint8_t collective_count = 0;
  bool has_correlation = false;
  bool bad_arg = false;  // a known arg had a value of the wrong type
  std::string_view bad_arg_key;
  // A top-level field with a value of the wrong type ("ph": 5, "name": null, "ts": {}): the
  // value is skipped and the event is dropped as a counted problem, not the whole file.
  std::string_view bad_field;
};

// What one reader learnt of its events' spelling (MemberPatterns): the members of the event
// objects and those of their "args".
struct EventPatterns {
  MemberPatterns event, args;
};

// Parses one event object starting at the cursor ('{'). Unknown keys are skipped. `learnt` may
// be null.
Scan ParseKinetoEvent(JsonCursor& c, KinetoEvent* ev, std::deque<std::string>* arena,
                      EventPatterns* learnt);

}  // namespace gpuscope::import::kineto
