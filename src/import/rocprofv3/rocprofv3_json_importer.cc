#include "import/rocprofv3/rocprofv3_json_importer.h"

#include <map>
#include <string>
#include <vector>

#include "import/common/json_walker.h"
#include "import/common/row_helpers.h"
#include "import/common/rocm_names.h"

namespace gpuscope::import::rocprofv3 {

using namespace rocm;  // the ROCm name classifiers
namespace {

using model::Trace;

// One buffer record, as read; resolved into the model once the whole process element is read
// (kernel_symbols and strings may come after the records).
struct Record {
  enum class Type : uint8_t { kKernel, kCopy, kApi };
  Type type = Type::kApi;
  int64_t kind = 0, operation = 0, tid = 0, corr = 0, start = 0, end = 0;
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

class ProcessReader {
 public:
  ProcessReader(JsonWalker* w, Trace* t, uint64_t corr_offset) : w_(*w), t_(*t), offset_(corr_offset) {}

  bool Read() {
    return w_.Object([&](std::string_view key) {
      if (key == "metadata") return ReadMetadata();
      if (key == "agents") return w_.Array([&] { return ReadAgent(); });
      if (key == "strings") return ReadStrings();
      if (key == "kernel_symbols") return w_.Array([&] { return ReadSymbol(); });
      if (key == "buffer_records") return ReadBufferRecords();
      return w_.Skip();
    });
  }

  void Build() {
    model::StringId pid_name = 0;
    if (!command_.empty()) pid_name = t_.strings.Intern(command_);
    if (pid_ >= 0 && pid_name) t_.process_names[pid_] = pid_name;
    std::map<int64_t, int64_t> agent_node;  // handle -> node id
    for (const auto& [handle, a] : agents_) {
      agent_node[handle] = a.node_id;
      if (a.type != 2) continue;
      model::Device d;
      d.id = static_cast<int32_t>(a.node_id);
      d.name = a.product.empty() ? a.name : a.product + " (" + a.name + ")";
      d.vendor = model::Vendor::kAmd;
      d.compute_units = static_cast<int32_t>(a.cu_count);
      d.warp_size = static_cast<int32_t>(a.wave);
      t_.devices.push_back(std::move(d));
    }
    auto node = [&](int64_t handle) {
      auto it = agent_node.find(handle);
      return it == agent_node.end() ? handle : it->second;
    };
    std::string pid_text = std::to_string(pid_);
    std::map<int64_t, model::StringId> symbol_names;
    for (const Record& r : records_) {
      int64_t dur = DurationOrZero(t_, r.start, r.end, "rocprofv3.end_before_start", "a buffer record");
      uint64_t corr = offset_ + static_cast<uint64_t>(r.corr);
      switch (r.type) {
        case Record::Type::kKernel: {
          model::KernelRow row;
          row.start_ns = r.start;
          row.dur_ns = dur;
          row.correlation = corr;
          int64_t dev = node(r.agent);
          row.device = static_cast<int16_t>(dev);
          row.track = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(dev), std::to_string(r.queue));
          auto [it, inserted] = symbol_names.emplace(r.kernel_id, 0);
          if (inserted) {
            auto s = symbols_.find(r.kernel_id);
            if (s == symbols_.end()) {
              t_.problems.Add("rocprofv3.unknown_kernel_id",
                              "kernel_id " + std::to_string(r.kernel_id) + " is not in kernel_symbols");
              it->second = t_.strings.Intern("<kernel " + std::to_string(r.kernel_id) + ">");
            } else {
              it->second = t_.strings.Intern(s->second.name);
            }
          }
          row.name = it->second;
          auto s = symbols_.find(r.kernel_id);
          if (s != symbols_.end()) row.registers = static_cast<uint32_t>(s->second.vgpr);
          for (int i = 0; i < 3; ++i) row.grid[i] = r.grid[i], row.block[i] = r.block[i];
          row.shared_mem = static_cast<uint32_t>(r.group_segment);
          row.flags = model::KernelWorkFlags(t_.str(row.name));
          t_.kernels.Append(row);
          break;
        }
        case Record::Type::kCopy: {
          model::MemopRow row;
          row.start_ns = r.start;
          row.dur_ns = dur;
          row.correlation = corr;
          row.kind = CopyDirection(OperationName(r.kind, r.operation));
          CopyEnds(row.kind, &row.src, &row.dst);
          int64_t dev = node(row.kind == model::MemopKind::kDtoH ? r.src_agent : r.agent);
          row.device = static_cast<int16_t>(dev);
          row.track = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(dev), "copy");
          row.bytes = r.bytes;
          row.name = t_.strings.Intern(CopyName(row.kind));
          t_.memops.Append(row);
          break;
        }
        case Record::Type::kApi: {
          std::string_view kind = KindName(r.kind);
          model::TrackId track = t_.InternTrack(model::TrackKind::kCpuThread, pid_text, std::to_string(r.tid));
          if (kind.rfind("MARKER", 0) == 0) {
            auto msg = markers_.find(r.corr);
            std::string_view text = msg != markers_.end() ? std::string_view(msg->second) : OperationName(r.kind, r.operation);
            if (dur == 0) {
              t_.instants.Append(r.start, t_.strings.Intern(text), track);
            } else {
              model::CpuRangeRow row;
              row.start_ns = r.start;
              row.dur_ns = dur;
              row.name = t_.strings.Intern(text);
              row.track = track;
              row.kind = model::CpuRangeKind::kAnnotation;
              t_.cpu.Append(row);
            }
            break;
          }
          model::ApiRow row;
          row.start_ns = r.start;
          row.dur_ns = dur;
          row.correlation = corr;
          row.track = track;
          row.name = t_.strings.Intern(OperationName(r.kind, r.operation));
          row.domain = kind.rfind("HSA", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
          t_.api.Append(row);
          break;
        }
      }
    }
  }

  int64_t pid() const { return pid_; }

 private:
  std::string_view KindName(int64_t kind) const {
    return kind >= 0 && static_cast<size_t>(kind) < kinds_.size() ? std::string_view(kinds_[kind].first) : "";
  }
  std::string_view OperationName(int64_t kind, int64_t op) const {
    if (kind < 0 || static_cast<size_t>(kind) >= kinds_.size()) return "<unknown kind>";
    const auto& ops = kinds_[kind].second;
    return op >= 0 && static_cast<size_t>(op) < ops.size() ? std::string_view(ops[op]) : "<unknown operation>";
  }

  bool ReadMetadata() {
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

  bool ReadAgent() {
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

  bool ReadStrings() {
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

  bool ReadSymbol() {
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

  bool ReadDim3(uint32_t* out) {
    return w_.Object([&](std::string_view k) {
      int64_t v = 0;
      int i = k == "x" ? 0 : k == "y" ? 1 : k == "z" ? 2 : -1;
      if (i < 0) return w_.Skip();
      if (!w_.Int(&v)) return false;
      out[i] = static_cast<uint32_t>(v);
      return true;
    });
  }

  bool ReadBufferRecords() {
    return w_.Object([&](std::string_view k) {
      Record::Type type;
      if (k == "kernel_dispatch") type = Record::Type::kKernel;
      else if (k == "memory_copy") type = Record::Type::kCopy;
      else if (k == "hip_api" || k == "hsa_api" || k == "marker_api" || k == "rccl_api" || k == "rocdecode_api" ||
               k == "rocjpeg_api") type = Record::Type::kApi;
      else return CountOther(k);
      return w_.Array([&] { return ReadRecord(type); });
    });
  }

  // Record arrays that are not events of the model (allocations, scratch, PC samples).
  bool CountOther(std::string_view k) {
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

  bool ReadRecord(Record::Type type) {
    Record r;
    r.type = type;
    bool ok = w_.Object([&](std::string_view k) {
      if (k == "kind") return w_.Int(&r.kind);
      if (k == "operation") return w_.Int(&r.operation);
      if (k == "thread_id") return w_.Int(&r.tid);
      if (k == "start_timestamp") return w_.Int(&r.start);
      if (k == "end_timestamp") return w_.Int(&r.end);
      if (k == "correlation_id") {
        return w_.Object([&](std::string_view f) { return f == "internal" ? w_.Int(&r.corr) : w_.Skip(); });
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

  JsonWalker& w_;
  Trace& t_;
  uint64_t offset_;
  int64_t pid_ = -1;
  std::string command_;
  std::map<int64_t, Agent> agents_;
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds_;
  std::map<int64_t, std::string> markers_;
  std::map<int64_t, KernelSymbol> symbols_;
  std::vector<Record> records_;
};

}  // namespace

bool Rocprofv3JsonImporter::Recognizes(const base::FileSniff& sniff) const {
  auto pos = sniff.head.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (pos == std::string::npos || sniff.head[pos] != '{') return false;
  // The document's first key (a JSON Schema that mentions the key is not output).
  auto key = sniff.head.find_first_not_of(" \t\r\n", pos + 1);
  return key != std::string::npos && sniff.head.compare(key, 22, "\"rocprofiler-sdk-tool\"") == 0;
}

base::StatusOr<ImportResult> Rocprofv3JsonImporter::Read(const std::string& path, const ImportOptions&) const {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, base::OpenByteSource(path));
  std::string doc;
  std::string error;
  {
    std::string chunk(4 << 20, '\0');
    for (;;) {
      long long n = src->Read(chunk.data(), chunk.size());
      if (n < 0) {
        error = src->error();
        break;
      }
      if (n == 0) break;
      doc.append(chunk.data(), static_cast<size_t>(n));
    }
  }
  size_t size = doc.size();
  doc.append(kJsonPadding, '\0');
  ImportResult result;
  Trace& trace = result.trace;
  trace.meta.path = path;
  trace.meta.producer = "rocprofv3 (rocprofiler-sdk)";
  trace.meta.clock = "CLOCK_BOOTTIME (ns)";
  JsonWalker w(doc.data(), doc.data() + size);
  int processes = 0;
  bool ok = w.Object([&](std::string_view key) {
    if (key != "rocprofiler-sdk-tool") return w.Skip();
    return w.Array([&] {
      ProcessReader p(&w, &trace, static_cast<uint64_t>(processes++) << 40);
      bool good = p.Read();
      p.Build();  // keep what was read even when the element broke part-way
      return good;
    });
  });
  if (!ok || !error.empty()) {
    std::string where = !error.empty() ? error : "at byte " + std::to_string(w.error_offset()) + ": " + w.error();
    if (trace.EventCount() == 0) return base::Status::Error(path + ": " + where + "; nothing usable was read");
    trace.meta.import_error = where;
  }
  trace.meta.format_version = std::to_string(processes) + (processes == 1 ? " process" : " processes");
  result.empty_reason =
      "the rocprofv3 JSON holds no records (no kernel dispatches, copies or API calls); run rocprofv3 with e.g. "
      "--runtime-trace";
  return result;
}

}  // namespace gpuscope::import::rocprofv3
