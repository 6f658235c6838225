// rocprofv3 CSV output (`<prefix>kernel_trace.csv`,
// `memory_copy_trace.csv`, `hip_api_trace.csv`, `hsa_api_trace.csv`, `marker_api_trace.csv`, ...).
// Given one `*_trace.csv`, it reads every trace CSV of the same run (same directory, same
// prefix); given a directory, the registry picks one of them. Three header generations exist
// (ROCm 6.2, 6.3, 6.4/7.x, plus `rocpd convert` output with a leading "Guid"): columns are
// always found by name. The memory-copy CSV has no byte counts: sizes stay unknown, never 0.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "base/numbers.h"
#include "import/common/allocation_records.h"
#include "import/common/csv_reader.h"
#include "import/common/rocm_names.h"
#include "import/common/row_helpers.h"
#include "import/formats.h"

namespace gpuscope::import::rocprofv3 {

using namespace rocm;  // the ROCm name classifiers
namespace {

using model::Trace;

enum class CsvKind { kKernel, kCopy, kApi, kAlloc, kOther };

// The first line of a CSV, split into header names.
std::vector<std::string> HeaderOf(const std::string& path) {
  auto file = OpenCsv(path, "CSV", nullptr);
  return file.ok() ? std::move(file->names) : std::vector<std::string>{};
}

// Which rocprofv3 trace a header belongs to (a leading "Guid" column comes from rocpd convert).
CsvKind KindOf(std::vector<std::string> h) {
  if (!h.empty() && h[0] == "Guid") h.erase(h.begin());
  if (h.size() >= 2 && h[0] == "Kind" && h[1] == "Agent_Id") return CsvKind::kKernel;
  if (h.size() >= 2 && h[0] == "Kind" && h[1] == "Direction") return CsvKind::kCopy;
  if (h.size() >= 3 && h[0] == "Domain" && h[1] == "Function" && h[2] == "Process_Id")
    return CsvKind::kApi;
  // The memory-allocation trace (the scratch-memory trace has Queue_Id third: not modelled).
  if (h.size() >= 3 && h[0] == "Kind" && h[1] == "Operation" && h[2] == "Agent_Id" &&
      std::find(h.begin(), h.end(), "Address") != h.end())
    return CsvKind::kAlloc;
  return CsvKind::kOther;
}

// "Agent 4", "GPU 3" (ROCm 7 relative/type-relative ids) or "4" (6.2/6.3): the number.
int64_t AgentNumber(std::string_view text) {
  size_t p = text.find_last_of(' ');
  auto v = base::ParseInt64(p == std::string_view::npos ? text : text.substr(p + 1));
  return v ? *v : -1;
}

// The run's trace files: the same directory and the same prefix before "<domain>_trace.csv"
// (rocprofv3 names them <output_file>_<domain>_trace.csv; domains vary by version and mode:
// hip_api, hip_runtime, hip_compile, hsa_api, hsa_core_api, marker_api, rccl_api, ...).
constexpr const char* kDomains[] = {
    "kernel",  "memory_copy",       "hip_api",         "hip_runtime",   "hip_compile", "hip",
    "hsa_api", "hsa_core_api",      "hsa_amd_ext_api", "hsa",           "marker_api",  "rccl_api",
    "rccl",    "memory_allocation", "scratch_memory",  "rocdecode_api", "rocjpeg_api"};

std::vector<std::string> RunFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::string prefix;
  if (!RunPrefixOf(fs::path(path).filename().string(), &prefix)) return {path};
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::vector<std::string> files;
  for (const char* d : kDomains) {
    fs::path f = dir / (prefix + d + "_trace.csv");
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) files.push_back(f.string());
  }
  return files;
}

class CsvRunReader {
 public:
  explicit CsvRunReader(Trace* t) : t_(*t) {}

  base::Status ReadFile(const std::string& path) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto file, OpenCsv(path, "CSV (no header)", &t_.problems));
    CsvReader& r = file.reader;
    const CsvHeader& h = file.header;
    CsvKind kind = KindOf(file.names);
    std::vector<std::string_view> f;
    std::string missing = Missing(kind, h);
    if (!missing.empty()) {
      return base::Status::Error(path + ": a rocprofv3 CSV without the column(s) " + missing +
                                 "; the file is cut or not a trace CSV");
    }
    std::string base = std::filesystem::path(path).filename().string();
    if (kind == CsvKind::kKernel) {
      // The kernel trace header tells the rocprofv3 generation (reference notes, section 3.2).
      generation_ = h.Has("Stream_Id")   ? "ROCm 6.4/7.x headers"
                    : h.Has("Thread_Id") ? "ROCm 6.3 headers"
                                         : "ROCm 6.2 headers";
      if (h.Has("Guid")) generation_ += ", written by rocpd convert";
    }
    uint64_t rows = 0;
    while (r.Next(&f)) {
      ++rows;
      if (!Row(kind, h, f, base, r.line())) continue;
    }
    if (!r.error().empty()) {
      error_ = r.error();
      error_file_ = path;
    }
    files_.push_back(base + " (" + std::to_string(rows) + " rows)");
    total_rows_ += rows;
    return base::Status::Ok();
  }

  // The allocation records as device memory events (AllocationRecords), in time order.
  void FinishAllocations() {
    if (allocations_.empty()) return;
    std::stable_sort(allocations_.begin(), allocations_.end(),
                     [](const Allocation& a, const Allocation& b) { return a.ts < b.ts; });
    const auto thread_of = ApiThreadsByCorrelation(t_);
    AllocationRecords records(&t_);
    for (const auto& a : allocations_) {
      auto it = thread_of.find(a.corr);
      model::TrackId track = it != thread_of.end()
                                 ? it->second
                                 : t_.InternTrack(model::TrackKind::kCpuThread, "rocprofv3",
                                                  "allocations (no API trace)");
      if (a.operation == "MEMORY_ALLOCATION_ALLOCATE") {
        records.Allocate(a.ts, track, devices_.count(a.agent) ? static_cast<int>(a.agent) : -1,
                         a.addr, a.bytes);
      } else if (a.operation == "MEMORY_ALLOCATION_FREE") {
        records.Free(a.ts, track, a.addr);
      } else {
        records.NotModelled("virtual memory allocation records (not modelled)");
      }
    }
  }

  std::string Summary() const {
    std::string s;
    for (const auto& f : files_) s += (s.empty() ? "" : ", ") + f;
    return s;
  }
  // What broke the read, naming the file when it is a sibling of `named` (the one the user gave).
  std::string error(const std::string& named) const {
    std::error_code ec;
    if (error_.empty() || std::filesystem::equivalent(error_file_, named, ec)) return error_;
    return std::filesystem::path(error_file_).filename().string() + ": " + error_;
  }
  uint64_t total_rows() const { return total_rows_; }
  bool saw_copies() const { return saw_copies_; }
  const std::string& generation() const { return generation_; }

 private:
  static std::string Missing(CsvKind kind, const CsvHeader& h) {
    std::vector<const char*> need = {"Correlation_Id", "Start_Timestamp", "End_Timestamp"};
    if (kind == CsvKind::kKernel) need.insert(need.end(), {"Agent_Id", "Queue_Id", "Kernel_Name"});
    if (kind == CsvKind::kCopy) need.insert(need.end(), {"Direction"});
    if (kind == CsvKind::kAlloc) need.insert(need.end(), {"Operation", "Address"});
    if (kind == CsvKind::kApi)
      need.insert(need.end(), {"Domain", "Function", "Process_Id", "Thread_Id"});
    std::string out;
    for (const char* c : need) {
      if (!h.Has(c)) out += (out.empty() ? "" : ", ") + std::string(c);
    }
    return out;
  }

  bool Times(const CsvHeader& h, const std::vector<std::string_view>& f, const std::string& file,
             uint64_t line, int64_t* start, int64_t* dur) {
    // rocprofiler-sdk writes unsigned nanoseconds: a sign is as wrong as text.
    auto s = base::ParseUint64(Field(f, h["Start_Timestamp"]));
    auto e = base::ParseUint64(Field(f, h["End_Timestamp"]));
    if (!s || !e || *s > INT64_MAX || *e > INT64_MAX) {
      t_.problems.Add(model::ProblemKind::kRocprofv3CsvBadTimestamp,
                      file + " line " + std::to_string(line) +
                          ": Start/End_Timestamp is not a non-negative integer; row skipped");
      return false;
    }
    *start = static_cast<int64_t>(*s);
    *dur = model::DurationBetween(*start, static_cast<int64_t>(*e));
    return true;
  }

  uint64_t Corr(const CsvHeader& h, const std::vector<std::string_view>& f) {
    auto v = base::ParseInt64(Field(f, h["Correlation_Id"]));
    return v ? static_cast<uint64_t>(*v) : model::kNoCorrelation;
  }

  bool Row(CsvKind kind, const CsvHeader& h, const std::vector<std::string_view>& f,
           const std::string& file, uint64_t line) {
    int64_t start = 0, dur = 0;
    if (kind == CsvKind::kOther) return false;
    if (!Times(h, f, file, line, &start, &dur)) return false;
    auto num = [&](const char* col) {
      auto v = base::ParseInt64(Field(f, h[col]));
      return v ? *v : 0;
    };
    if (kind == CsvKind::kKernel) {
      model::KernelRow row;
      row.start_ns = start;
      row.dur_ns = dur;
      row.correlation = Corr(h, f);
      int64_t agent = AgentNumber(Field(f, h["Agent_Id"]));
      row.device = static_cast<int16_t>(agent);
      row.track = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(agent),
                                 std::string(Field(f, h["Queue_Id"])));
      Device(agent);
      std::string_view name = Field(f, h["Kernel_Name"]);
      if (name.size() > 3 && name.substr(name.size() - 3) == ".kd") name.remove_suffix(3);
      row.name = t_.strings.Intern(name);
      row.grid = {static_cast<uint32_t>(num("Grid_Size_X")),
                  static_cast<uint32_t>(num("Grid_Size_Y")),
                  static_cast<uint32_t>(num("Grid_Size_Z"))};
      row.block = {static_cast<uint32_t>(num("Workgroup_Size_X")),
                   static_cast<uint32_t>(num("Workgroup_Size_Y")),
                   static_cast<uint32_t>(num("Workgroup_Size_Z"))};
      row.registers = static_cast<uint32_t>(h.Has("VGPR_Count") ? num("VGPR_Count") : 0);
      row.shared_mem = static_cast<uint32_t>(h.Has("LDS_Block_Size") ? num("LDS_Block_Size")
                                                                     : num("Group_Segment_Size"));
      row.flags = model::KernelWorkFlags(name);
      t_.kernels.Append(row);
    } else if (kind == CsvKind::kAlloc) {
      // Kept until every file is read: the GPU agents come from the kernel trace, the host
      // thread from the API call of the same correlation id, and the records are matched in
      // time order.
      auto addr = base::ParseHexUint64(Field(f, h["Address"]));
      if (!addr) {
        t_.problems.Add(model::ProblemKind::kRocprofv3CsvBadAddress,
                        file + " line " + std::to_string(line) +
                            ": Address is not a hexadecimal number; row skipped");
        return false;
      }
      allocations_.push_back({start, Corr(h, f), *addr, num("Allocation_Size"),
                              AgentNumber(Field(f, h["Agent_Id"])),
                              std::string(Field(f, h["Operation"]))});
    } else if (kind == CsvKind::kCopy) {
      saw_copies_ = true;
      model::MemopRow row;
      row.start_ns = start;
      row.dur_ns = dur;
      row.correlation = Corr(h, f);
      row.kind = CopyDirection(Field(f, h["Direction"]));
      CopyEnds(row.kind, &row.src, &row.dst);
      int64_t agent = AgentNumber(Field(
          f, h[row.kind == model::MemopKind::kDtoH ? "Source_Agent_Id" : "Destination_Agent_Id"]));
      row.device = static_cast<int16_t>(agent);
      row.track = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(agent), "copy");
      row.bytes = -1;  // rocprofv3's CSV never records copy sizes
      row.name = t_.strings.Intern(CopyName(row.kind));
      t_.memops.Append(row);
    } else {
      std::string_view domain = Field(f, h["Domain"]);
      model::TrackId track = t_.InternTrack(model::TrackKind::kCpuThread, Field(f, h["Process_Id"]),
                                            Field(f, h["Thread_Id"]));
      std::string_view fn = Field(f, h["Function"]);
      if (domain.rfind("MARKER", 0) == 0) {  // Function holds the roctx message
        if (dur == 0) {
          t_.instants.Append(start, t_.strings.Intern(fn), track);
        } else {
          auto row = model::MakeSlice<model::CpuRangeRow>(start, dur, t_.strings.Intern(fn), track);
          row.kind = model::CpuRangeKind::kAnnotation;
          t_.cpu.Append(row);
        }
        return true;
      }
      auto row = model::MakeSlice<model::ApiRow>(start, dur, t_.strings.Intern(fn), track);
      row.correlation = Corr(h, f);
      row.domain =
          domain.rfind("HSA", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
      t_.api.Append(row);
    }
    return true;
  }

  void Device(int64_t agent) {
    if (agent < 0 || !devices_.insert(agent).second) return;
    model::Device d;
    d.id = static_cast<int32_t>(agent);
    d.name = "AMD GPU (agent " + std::to_string(agent) + ")";
    d.vendor = model::Vendor::kAmd;
    t_.devices.push_back(std::move(d));
  }

  struct Allocation {
    int64_t ts;
    uint64_t corr, addr;
    int64_t bytes, agent;
    std::string operation;
  };

  Trace& t_;
  std::set<int64_t> devices_;  // the GPU agents: those that ran kernels
  std::vector<Allocation> allocations_;
  std::vector<std::string> files_;
  std::string error_, error_file_;
  std::string generation_;
  uint64_t total_rows_ = 0;
  bool saw_copies_ = false;
};

}  // namespace

bool RunPrefixOf(const std::string& name, std::string* prefix) {
  // Longest domain first where one ends another ("hip_api" vs "api"): the list has no such
  // pairs except hip/hsa/rccl vs their _api forms, which the "_trace.csv" suffix disambiguates.
  for (const char* d : kDomains) {
    std::string suffix = std::string(d) + "_trace.csv";
    if (name.ends_with(suffix)) {
      std::string p = name.substr(0, name.size() - suffix.size());
      if (!p.empty() && p.back() != '_')
        continue;  // "xhip_trace.csv" is not the "hip" domain of prefix "x"
      *prefix = p;
      return true;
    }
  }
  return false;
}

// The header's first fields, quoted or not (a spreadsheet re-saves it unquoted, with a BOM and
// CRLF), tell the trace apart: the same test as the reader's KindOf.
bool RecognizesRocprofv3Csv(const base::FileSniff& sniff) {
  std::string_view head(sniff.head);
  if (head.rfind("\xef\xbb\xbf", 0) == 0) head.remove_prefix(3);
  head = head.substr(0, head.find('\n'));
  if (!head.empty() && head.back() == '\r') head.remove_suffix(1);
  std::vector<std::string> names;
  for (size_t at = 0; at <= head.size() && names.size() < 4;) {
    size_t comma = std::min(head.find(',', at), head.size());
    std::string_view f = head.substr(at, comma - at);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    names.emplace_back(f);
    at = comma + 1;
  }
  CsvKind k = KindOf(names);
  return k == CsvKind::kKernel || k == CsvKind::kCopy || k == CsvKind::kApi;
}

base::StatusOr<ImportResult> ReadRocprofv3Csv(const std::string& path, const ImportOptions&) {
  ImportResult result;
  Trace& trace = result.trace;
  trace.meta.path = path;
  trace.meta.producer = "rocprofv3 (rocprofiler-sdk)";
  trace.meta.clock = "CLOCK_BOOTTIME (ns)";
  CsvRunReader reader(&trace);
  std::vector<std::string> files = RunFiles(path);
  bool have_kernels = false;
  for (const auto& f : files) {
    CsvKind k = KindOf(HeaderOf(f));
    if (k == CsvKind::kOther) {
      ++trace.record_counts["CSV files not modelled (scratch memory)"];
      continue;
    }
    have_kernels |= k == CsvKind::kKernel;
    base::Status st = reader.ReadFile(f);
    if (!st.ok()) {
      if (f == path) return st;  // the file the user named is unusable
      trace.problems.Add(model::ProblemKind::kRocprofv3CsvUnreadableSibling, st.message());
    }
  }
  reader.FinishAllocations();
  trace.meta.format_version = (reader.generation().empty() ? "" : reader.generation() + "; ") +
                              "files: " + reader.Summary();
  trace.meta.import_error = reader.error(path);
  if (!have_kernels)
    trace.meta.not_collected.push_back("kernel dispatches (no kernel_trace.csv in the run)");
  if (!reader.saw_copies())
    trace.meta.not_collected.push_back("memory copies (no memory_copy_trace.csv in the run)");
  if (reader.total_rows() == 0) {
    result.empty_reason = "the rocprofv3 CSV run has headers but no rows (" + reader.Summary() +
                          "); was the profiled program's GPU work traced?";
  } else {
    std::string first = trace.problems.empty()
                            ? std::string()
                            : "; first problem: " + trace.problems.entries().begin()->first + ": " +
                                  trace.problems.entries().begin()->second.first_example;
    result.empty_reason = "none of the rocprofv3 CSV run's " + std::to_string(reader.total_rows()) +
                          " rows holds a usable event (" + reader.Summary() + ")" + first;
  }
  return result;
}

}  // namespace gpuscope::import::rocprofv3
