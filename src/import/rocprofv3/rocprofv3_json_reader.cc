// What one process element of rocprofv3 JSON holds, read as it comes.

#include "import/rocprofv3/rocprofv3_json_reader.h"

#include "import/common/rocm_names.h"

namespace gpuscope::import::rocprofv3 {

using namespace rocm;  // the ROCm name classifiers
using model::Trace;

bool ProcessReader::Read() {
  return w_.Object([&](std::string_view key) {
    if (key == "metadata") return ReadMetadata();
    if (key == "agents") return w_.Array([&] { return ReadAgent(); });
    if (key == "strings") return ReadStrings();
    if (key == "kernel_symbols") return w_.Array([&] { return ReadSymbol(); });
    if (key == "buffer_records") return ReadBufferRecords();
    return w_.Skip();
  });
}

bool ProcessReader::ReadMetadata() {
  return w_.Object([&](std::string_view k) {
    if (k == "pid") return w_.Int(&pid_, -1);
    if (k == "command") {
      return w_.Array([&] {
        std::string arg;
        if (!w_.Str(&arg)) return false;
        command_ += (command_.empty() ? "" : " ") + arg;
        return true;
      });
    }
    return w_.Skip();
  });
}

bool ProcessReader::ReadAgent() {
  Agent a;
  int64_t handle = 0;
  bool ok = w_.Object([&](std::string_view k) {
    if (k == "id") return w_.Handle(&handle);
    if (k == "type") return w_.Int(&a.type);
    if (k == "node_id") return w_.Int(&a.node_id, -1);
    if (k == "name") return w_.Str(&a.name);
    if (k == "product_name") return w_.Str(&a.product);
    if (k == "cu_count") return w_.Int(&a.cu_count);
    if (k == "wave_front_size") return w_.Int(&a.wave);
    return w_.Skip();
  });
  if (a.node_id < 0) a.node_id = handle;
  agents_[handle] = std::move(a);
  return ok;
}

bool ProcessReader::ReadStrings() {
  return w_.Object([&](std::string_view k) {
    if (k == "buffer_records") {
      return w_.Array([&] {
        std::pair<std::string, std::vector<std::string>> entry;
        bool ok = w_.Object([&](std::string_view f) {
          if (f == "kind") return w_.Str(&entry.first);
          if (f == "operations") {
            return w_.Array([&] {
              entry.second.emplace_back();
              return w_.Str(&entry.second.back());
            });
          }
          return w_.Skip();
        });
        kinds_.push_back(std::move(entry));
        return ok;
      });
    }
    if (k == "marker_api") {
      return w_.Array([&] {
        int64_t key = 0;
        std::string value;
        bool ok = w_.Object([&](std::string_view f) {
          if (f == "key") return w_.Int(&key);
          if (f == "value") return w_.Str(&value);
          return w_.Skip();
        });
        markers_[key] = std::move(value);
        return ok;
      });
    }
    return w_.Skip();
  });
}

bool ProcessReader::ReadSymbol() {
  int64_t id = -1;
  KernelSymbol s;
  std::string formatted, raw;
  bool ok = w_.Object([&](std::string_view k) {
    if (k == "kernel_id") return w_.Int(&id, -1);
    if (k == "formatted_kernel_name") return w_.Str(&formatted);
    if (k == "kernel_name") return w_.Str(&raw);
    if (k == "arch_vgpr_count") return w_.Int(&s.vgpr);
    return w_.Skip();
  });
  if (raw.size() > 3 && raw.compare(raw.size() - 3, 3, ".kd") == 0) raw.resize(raw.size() - 3);
  s.name = formatted.empty() ? raw : formatted;
  if (id >= 0) symbols_[id] = std::move(s);
  w_.ClearArena();
  return ok;
}

bool ProcessReader::ReadDim3(uint32_t* out) {
  return w_.Object([&](std::string_view k) {
    int64_t v = 0;
    int i = k == "x" ? 0 : k == "y" ? 1 : k == "z" ? 2 : -1;
    if (i < 0) return w_.Skip();
    if (!w_.Int(&v)) return false;
    out[i] = static_cast<uint32_t>(v);
    return true;
  });
}

bool ProcessReader::ReadBufferRecords() {
  return w_.Object([&](std::string_view k) {
    Record::Type type;
    if (k == "kernel_dispatch")
      type = Record::Type::kKernel;
    else if (k == "memory_copy")
      type = Record::Type::kCopy;
    else if (k == "hip_api" || k == "hsa_api" || k == "marker_api" || k == "rccl_api" ||
             k == "rocdecode_api" || k == "rocjpeg_api")
      type = Record::Type::kApi;
    else
      return CountOther(k);
    return w_.Array([&] { return ReadRecord(type); });
  });
}

bool ProcessReader::CountOther(std::string_view k) {
  uint64_t n = 0;
  char c = 0;
  if (!w_.Peek(&c)) return false;
  if (c != '[') return w_.Skip();
  bool ok = w_.Array([&] {
    ++n;
    return w_.Skip();
  });
  if (n) t_.record_counts["rocprofv3 " + std::string(k) + " records (not modelled)"] += n;
  return ok;
}

bool ProcessReader::ReadRecord(Record::Type type) {
  Record r;
  r.type = type;
  bool ok = w_.Object([&](std::string_view k) {
    if (k == "kind") return w_.Int(&r.kind);
    if (k == "operation") return w_.Int(&r.operation);
    if (k == "thread_id") return w_.Int(&r.tid);
    if (k == "start_timestamp") return w_.Int(&r.start, model::kUnknownTime);
    if (k == "end_timestamp") return w_.Int(&r.end, model::kUnknownTime);
    if (k == "correlation_id") {
      return w_.Object(
          [&](std::string_view f) { return f == "internal" ? w_.Int(&r.corr) : w_.Skip(); });
    }
    if (k == "bytes") return w_.Int(&r.bytes, -1);
    if (k == "dst_agent_id") return w_.Handle(&r.agent);
    if (k == "src_agent_id") return w_.Handle(&r.src_agent);
    if (k == "dispatch_info") {
      return w_.Object([&](std::string_view f) {
        if (f == "agent_id") return w_.Handle(&r.agent);
        if (f == "queue_id") return w_.Handle(&r.queue);
        if (f == "kernel_id") return w_.Int(&r.kernel_id);
        if (f == "group_segment_size") return w_.Int(&r.group_segment);
        if (f == "workgroup_size") return ReadDim3(r.block);
        if (f == "grid_size") return ReadDim3(r.grid);
        return w_.Skip();
      });
    }
    return w_.Skip();
  });
  records_.push_back(r);
  return ok;
}

}  // namespace gpuscope::import::rocprofv3
