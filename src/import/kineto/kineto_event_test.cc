#include "import/kineto/kineto_event.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuscope::import::kineto {
namespace kineto_event_test {  // this file's helpers, apart in a unity build
namespace {

// Every field a parse sets, as one comparable text; spans of the text as offsets from `base`.
// (Appended piece by piece: GCC 12's -Wrestrict misfires on long chains of std::string +.)
std::string Fields(const KinetoEvent& e, const char* base) {
  std::string out(1, e.ph);
  for (std::string_view v : {e.cat, e.name, e.pid, e.tid, e.ts, e.dur, e.id, e.copy_kind,
                             e.src_kind, e.dst_kind, e.domain, e.kernel, e.input_dims,
                             e.input_types, e.concrete_inputs, e.bad_arg_key, e.bad_field}) {
    out += '|';
    out += v;
  }
  const auto offset = [base](const char* q) { return q == nullptr ? int64_t{-1} : q - base; };
  for (int64_t v : {int64_t(e.correlation),
                    int64_t(e.external_id),
                    e.bytes,
                    e.device,
                    e.stream,
                    e.python_id,
                    e.python_parent_id,
                    e.wait_on_record,
                    e.wait_on_stream,
                    int64_t(e.registers),
                    int64_t(e.shared_mem),
                    int64_t(e.grid[0]),
                    int64_t(e.grid[1]),
                    int64_t(e.grid[2]),
                    int64_t(e.block[0]),
                    int64_t(e.block[1]),
                    int64_t(e.block[2]),
                    int64_t(e.has_correlation),
                    int64_t(e.bad_arg),
                    int64_t(e.has_pid),
                    int64_t(e.has_tid),
                    int64_t(e.ts_is_string),
                    int64_t(e.dur_is_string),
                    int64_t(e.collective_count),
                    offset(e.args_begin),
                    offset(e.args_end)}) {
    out += ',';
    out += std::to_string(v);
  }
  for (size_t i = 0; i < e.collective_count; ++i) {
    out += '|';
    out += e.collective[i].key;
    out += '=';
    out += e.collective[i].json;
  }
  return out;
}

struct Parsed {
  Scan scan;
  std::string fields;
  size_t consumed;
  std::string error;  // what the tokenizer said, at which offset
  KinetoEvent event;  // its views dead with the parse: for counts and numbers only
};

// Parses `text` (one event object, then kJsonPadding NUL bytes) with or without learnt patterns.
Parsed Parse(const std::string& text, EventPatterns* learnt) {
  std::string bytes = text;
  bytes.append(kJsonPadding, '\0');
  JsonCursor c(bytes.data(), bytes.data() + text.size());
  KinetoEvent ev;
  std::deque<std::string> arena;
  Parsed p;
  p.scan = ParseKinetoEvent(c, &ev, &arena, learnt);
  p.fields = p.scan == Scan::kOk ? Fields(ev, bytes.data()) : "";
  p.consumed = static_cast<size_t>(c.pos() - bytes.data());
  if (p.scan == Scan::kError) {
    p.error = std::string(c.error_what()) + " at " + std::to_string(c.error_at() - bytes.data());
  }
  p.event = ev;
  return p;
}

// The learnt spellings are only a shortcut: a sequence of events that repeat, reorder, respace,
// escape and break their members parses, event by event, exactly as with no learning at all.
TEST(KinetoEventPatterns, ParseAsTheTokenizerDoesWhateverTheSequence) {
  const std::vector<std::string> events = {
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,)"
      R"( "args": {"correlation": 5, "grid": [1, 2, 3], "block": [4, 5, 6], "stream": 7}})",
      // the same spelling: learnt runs match
      R"({"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 11.5, "dur": 3,)"
      R"( "args": {"correlation": 6, "grid": [7, 8, 9], "block": [1, 1, 1], "stream": 8}})",
      // args reordered: position 0 now holds another key, whose tag must not be the old one's
      R"({"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 12.5, "dur": 4,)"
      R"( "args": {"stream": 9, "correlation": 7, "block": [2, 2, 2], "grid": [3, 3, 3]}})",
      // and back again
      R"({"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts": 13.5, "dur": 5,)"
      R"( "args": {"correlation": 8, "grid": [4, 4, 4], "block": [5, 5, 5], "stream": 10}})",
      // other whitespace: more after ':' than learnt, none after ','
      R"({"ph":  "X","cat":"cpu_op",  "name": "aten::mm","pid":1,"tid":1,"ts":20,"dur":1,)"
      R"("args":{"External id":3,"Input Dims":[[2,3],[3,4]],"Input type":["float","float"]}})",
      // an escaped key: decoded into the arena, never learnt
      R"({"ph": "X", "c\u0061t": "cpu_op", "name": "a\"b", "pid": 1, "tid": 1, "ts": 21,)"
      R"( "dur": 1, "args": {"Ext\u0065rnal id": 4, "Python id": 9}})",
      // a key that shares the learnt run's first bytes but is longer
      R"({"ph": "X", "cats": "x", "cat": "cpu_op", "name": "n", "pid": 1, "tid": 1, "ts": 22,)"
      R"( "dur": 1, "args": {"External idx": 4, "External id": 5}})",
      // a run longer than the 32 bytes kept
      R"({"ph": "X", "cat": "cuda_runtime", "name": "r", "pid": 1, "tid": 1, "ts": 23,)"
      R"( "dur": 1, "args": {"wait_on_cuda_event_record_corr_id": 12, "wait_on_stream": 3}})",
      // fewer members than learnt: the object ends where a learnt run was expected
      R"({"ph": "i", "name": "mark", "ts": 24})",
      // every string arg, the launch args and the op's inputs
      R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7,)"
      R"( "ts": 30, "dur": 2, "args": {"copy kind": "HtoD", "src kind": "Pageable",)"
      R"( "dst kind": "Device", "domain": "hsa", "bytes": 4096, "device": 1}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,)"
      R"( "ts": 31, "dur": 2, "args": {"kernel": "gemm", "registers per thread": 32,)"
      R"( "shared memory": 2048, "Python id": 11, "Python parent id": 10, "size": 8}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 32,)"
      R"( "dur": 1, "args": {"Concrete Inputs": ["", "1"], "Input Dims": [[2], []],)"
      R"( "Input type": ["float", "Scalar"], "copy kind": 5, "Input Dims": {}}})",
      // more collective keys than the event keeps
      R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,)"
      R"( "ts": 33, "dur": 1, "args": {"Collective name": "allreduce", "dtype": "Float",)"
      R"( "In msg nelems": 4, "Out msg nelems": 4, "Group size": 8, "Process Group Name": "0",)"
      R"( "Process Group Description": "default", "Process Group Ranks": "[0]", "Seq": 1,)"
      R"( "Seq": 2, "Collective name": "again"}})",
      // wrong types and a collective
      R"({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 1,)"
      R"( "ts": 25, "dur": {}, "args": {"bytes": "x", "Collective name": "allreduce",)"
      R"( "Seq": 3, "correlation": [1]}})",
      // damaged after a learnt run: the error is the tokenizer's
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,)"
      R"( "args": {"correlation": 5, "grid": [1, 2, 3] "block": [4, 5, 6]}})",
      // cut inside a learnt run: the window's end (the padding) never matches
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur)",
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,)"
      R"( "args": {"correlation": 5, "grid": [1, 2, 3], "block": [4, 5, 6], "stream": 7}})",
  };
  EventPatterns learnt;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& text : events) {
      SCOPED_TRACE(text);
      const Parsed plain = Parse(text, nullptr);
      const Parsed fast = Parse(text, &learnt);
      EXPECT_EQ(fast.scan, plain.scan);
      EXPECT_EQ(fast.fields, plain.fields);
      EXPECT_EQ(fast.consumed, plain.consumed);
      EXPECT_EQ(fast.error, plain.error);
    }
  }
  // The learning took place: the last event's runs are learnt, the first args key classified.
  std::string_view key;
  size_t len = 0;
  const std::string& last = events.back();
  EXPECT_TRUE(learnt.event.Match(0, last.data() + 1, &key, &len));
  EXPECT_EQ(key, "ph");
  ASSERT_NE(learnt.args.Tag(0), nullptr);
  EXPECT_NE(*learnt.args.Tag(0), 0);
  // The cut event ends in the window: more bytes needed, not an error.
  EXPECT_EQ(Parse(events[15], &learnt).scan, Scan::kNeedMore);
  EXPECT_EQ(Parse(events[14], &learnt).scan, Scan::kError);
}

// What the args say, read with their spellings learnt (the second time each event is read):
// the values the plain reading must also give.
TEST(KinetoEventPatterns, ReadsEveryKindOfArg) {
  const std::string copy =
      R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 30,)"
      R"( "dur": 2, "args": {"copy kind": "HtoD", "src kind": "Pageable", "dst kind": "Device",)"
      R"( "domain": "hsa", "bytes": 4096, "device": 1, "correlation": 9}})";
  const std::string launch =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,)"
      R"( "ts": 31, "dur": 2, "args": {"kernel": "gemm", "registers per thread": 32,)"
      R"( "shared memory": 2048, "Python id": 11, "Python parent id": 10, "grid": [4, 5, 6],)"
      R"( "External id": 12, "stream": "0x7", "wait_on_stream": 3}})";
  const std::string comms =
      R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,)"
      R"( "ts": 33, "dur": 1, "args": {"Collective name": "allreduce", "Seq": 1, "Seq": 2,)"
      R"( "Seq": 3, "Seq": 4, "Seq": 5, "Seq": 6, "Seq": 7, "Seq": 8, "Seq": 9, "Seq": 10,)"
      R"( "Input Dims": [[2]], "Input type": ["float"], "Concrete Inputs": [""]}})";
  for (EventPatterns* learnt : {static_cast<EventPatterns*>(nullptr), new EventPatterns}) {
    for (int round = 0; round < 2; ++round) {
      const Parsed c = Parse(copy, learnt);
      ASSERT_EQ(c.scan, Scan::kOk);
      EXPECT_NE(c.fields.find("|HtoD|Pageable|Device|hsa|"), std::string::npos) << c.fields;
      EXPECT_EQ(c.event.bytes, 4096);
      EXPECT_EQ(c.event.device, 1);
      EXPECT_EQ(c.event.correlation, 9u);
      EXPECT_TRUE(c.event.has_correlation);
      const Parsed l = Parse(launch, learnt);
      ASSERT_EQ(l.scan, Scan::kOk);
      EXPECT_NE(l.fields.find("|gemm|"), std::string::npos) << l.fields;
      EXPECT_EQ(l.event.registers, 32u);
      EXPECT_EQ(l.event.shared_mem, 2048u);
      EXPECT_EQ(l.event.python_id, 11);
      EXPECT_EQ(l.event.python_parent_id, 10);
      EXPECT_EQ(l.event.grid[1], 5u);
      EXPECT_EQ(l.event.external_id, 12u);
      EXPECT_EQ(l.event.stream, 7);
      EXPECT_EQ(l.event.wait_on_stream, 3);
      EXPECT_FALSE(l.event.has_correlation);
      EXPECT_FALSE(l.event.bad_arg);
      const Parsed m = Parse(comms, learnt);
      ASSERT_EQ(m.scan, Scan::kOk);
      EXPECT_EQ(m.event.collective_count, m.event.collective.size());  // the rest skipped
      EXPECT_NE(m.fields.find("|[[2]]|[\"float\"]|[\"\"]|"), std::string::npos) << m.fields;
    }
    delete learnt;
  }
}

}  // namespace
}  // namespace kineto_event_test
}  // namespace gpuscope::import::kineto
