#pragma once
// The reader of rocprofv3's JSON output, one process element at a time (internal to
// import/rocprofv3).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "import/common/json_walker.h"
#include "import/common/row_helpers.h"
#include "model/trace.h"

namespace gpuscope::import::rocprofv3 {

// One buffer record, as read; resolved into the model once the whole process element is read
// (kernel_symbols and strings may come after the records).
struct Record {
  enum class Type : uint8_t { kKernel, kCopy, kApi };
  Type type = Type::kApi;
  int64_t kind = 0, operation = 0, tid = 0, corr = 0;
  int64_t start = model::kUnknownTime, end = model::kUnknownTime;  // absent = unknown
  int64_t agent = 0, queue = 0, kernel_id = 0, bytes = -1, src_agent = 0;
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int64_t group_segment = 0;
};

struct KernelSymbol {
  std::string name;
  int64_t vgpr = 0;
};

struct Agent {
  int64_t node_id = -1;
  int64_t type = 0;  // 1 CPU, 2 GPU
  std::string name, product;
  int64_t cu_count = 0, wave = 0;
};

// Reads one element of "rocprofiler-sdk-tool" (one process): metadata, agents, strings,
// kernel symbols and buffer records, then builds its events into the trace. Split into
// rocprofv3_json_reader.cc (what the JSON holds) and rocprofv3_json_build.cc (the model rows).
class ProcessReader {
 public:
  ProcessReader(JsonWalker* w, model::Trace* t, uint64_t corr_offset)
      : w_(*w), t_(*t), offset_(corr_offset) {}

  bool Read();

  void Build();

  int64_t pid() const { return pid_; }

 private:
  std::string_view KindName(int64_t kind) const;
  std::string_view OperationName(int64_t kind, int64_t op) const;

  bool ReadMetadata();

  bool ReadAgent();

  bool ReadStrings();

  bool ReadSymbol();

  bool ReadDim3(uint32_t* out);

  bool ReadBufferRecords();

  // Record arrays that are not events of the model (allocations, scratch, PC samples).
  bool CountOther(std::string_view k);

  bool ReadRecord(Record::Type type);

  JsonWalker& w_;
  model::Trace& t_;
  uint64_t offset_;
  int64_t pid_ = -1;
  std::string command_;
  std::map<int64_t, Agent> agents_;
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds_;
  std::map<int64_t, std::string> markers_;
  std::map<int64_t, KernelSymbol> symbols_;
  std::vector<Record> records_;
};

}  // namespace gpuscope::import::rocprofv3
