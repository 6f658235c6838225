#pragma once
// The row builder and helpers shared by the importers of legacy rocprof outputs
// (import/rocprof) and of rocmProfileData's rpd2tracing JSON (import/rpd).

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "import/common/rocm_names.h"
#include "import/common/row_helpers.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuscope::import::rocm {

using model::Trace;

// Legacy rocprof's metadata (producer, clock) with the format version `version`.
void InitLegacyMeta(Trace& t, const std::string& path, const char* version);

// "void k<float>(float*) [clone .kd]" / "k.kd" -> the kernel name as HIP names it.
std::string_view CleanKernelName(std::string_view n);

// The size a copy API was asked to move, from its argument text; -1 when absent.
int64_t SizeBytesArg(std::string_view args);

// The integer in `s`, else `fallback`.
int64_t Num(std::string_view s, int64_t fallback = -1);

// Builds the model from the rows of the legacy rocprof sources and rpd2tracing JSON: kernels and
// HIP ops classified by name, API calls (copy sizes from their sizeBytes argument), markers.
class RocmRowBuilder {
 public:
  explicit RocmRowBuilder(Trace* t) : t_(*t) {}

  void Kernel(int64_t begin, int64_t end, int64_t gpu, std::string_view queue,
              std::string_view name, uint64_t corr, const model::Dim3& grid = {0, 0, 0},
              const model::Dim3& block = {0, 0, 0}, uint32_t vgpr = 0, uint32_t lds = 0) {
    auto row = GpuRow<model::KernelRow>(begin, end, gpu, queue, corr);
    std::string_view clean = CleanKernelName(name);
    row.name = t_.strings.Intern(clean);
    row.grid = grid;
    row.block = block;
    row.registers = vgpr;
    row.shared_mem = lds;
    row.flags = model::KernelWorkFlags(clean);
    t_.kernels.Append(row);
  }

  // A HIP op whose name says whether it is a copy, a fill or a kernel (tblextr's split).
  void Op(int64_t begin, int64_t end, int64_t gpu, std::string_view queue, std::string_view name,
          uint64_t corr) {
    OpClass cls = ClassifyOp(name);
    if (cls == OpClass::kKernel || cls == OpClass::kOther) {
      if (name == "Marker" || name == "<barrier packet>") {
        ++t_.record_counts["barrier/marker packets"];
        return;
      }
      Kernel(begin, end, gpu, queue, name, corr);
      return;
    }
    auto row = GpuRow<model::MemopRow>(begin, end, gpu, queue, corr);
    if (cls == OpClass::kFill) {
      row.kind = model::MemopKind::kMemset;
      row.dst = model::MemoryKind::kDevice;
      row.name = t_.strings.Intern("Memset (Device)");
    } else {
      row.kind = CopyDirection(name);
      CopyEnds(row.kind, &row.src, &row.dst);
      row.name = t_.strings.Intern(CopyName(row.kind));
    }
    t_.memops.Append(row);
  }

  void Api(int64_t begin, int64_t end, std::string_view pid, std::string_view tid,
           std::string_view name, uint64_t corr, std::string_view args, bool hsa) {
    // The thread before the name, as the strings were always numbered (argument order is the
    // compiler's).
    model::TrackId track = t_.InternTrack(model::TrackKind::kCpuThread, pid, tid);
    auto row =
        model::MakeSlice<model::ApiRow>(begin, Dur(begin, end), t_.strings.Intern(name), track);
    row.correlation = corr;
    row.domain = hsa ? model::ApiDomain::kHsa : ApiDomainOf(name);
    int64_t size = SizeBytesArg(args);
    if (size >= 0 && corr != model::kNoCorrelation) copy_sizes_[corr] = size;
    t_.api.Append(row);
  }

  void Marker(int64_t begin, int64_t end, std::string_view pid, std::string_view tid,
              std::string_view text) {
    model::TrackId track = t_.InternTrack(model::TrackKind::kCpuThread, pid, tid);
    if (end <= begin) {
      t_.instants.Append(begin, t_.strings.Intern(text), track);
      return;
    }
    auto row = model::MakeSlice<model::CpuRangeRow>(begin, model::DurationBetween(begin, end),
                                                    t_.strings.Intern(text), track);
    row.kind = model::CpuRangeKind::kAnnotation;
    t_.cpu.Append(row);
  }

  // Copies take their size from the launching call's sizeBytes argument.
  void Finish() {
    for (size_t i = 0; i < t_.memops.size(); ++i) {
      if (t_.memops.kind[i] == model::MemopKind::kMemset) continue;
      auto it = copy_sizes_.find(t_.memops.correlation[i]);
      if (it != copy_sizes_.end()) t_.memops.bytes[i] = it->second;
    }
    if (!copy_sizes_.empty())
      t_.meta.properties["copy sizes"] = "from the launching call's sizeBytes argument";
  }

 private:
  static int64_t Dur(int64_t begin, int64_t end) { return model::DurationBetween(begin, end); }

  // A kernel's or copy's times, device, stream and correlation (its name is the caller's).
  template <typename Row>
  Row GpuRow(int64_t begin, int64_t end, int64_t gpu, std::string_view queue, uint64_t corr) {
    auto row = model::MakeSlice<Row>(begin, Dur(begin, end), 0, GpuTrack(gpu, queue));
    row.device = static_cast<int16_t>(gpu);
    row.correlation = corr;
    return row;
  }

  model::TrackId GpuTrack(int64_t gpu, std::string_view queue) {
    if (gpu >= 0 && devices_.insert(gpu).second) {
      model::Device d;
      d.id = static_cast<int32_t>(gpu);
      d.name = "AMD GPU (id " + std::to_string(gpu) + " as the tool numbers it)";
      d.vendor = model::Vendor::kAmd;
      t_.devices.push_back(std::move(d));
    }
    return t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(gpu),
                          queue.empty() ? "0" : queue);
  }

  Trace& t_;
  std::set<int64_t> devices_;
  std::unordered_map<uint64_t, int64_t> copy_sizes_;
};

// Ends an import whose rows `b` built into `result.trace`; `empty_reason` is said when none.
ImportResult FinishLegacy(ImportResult& result, RocmRowBuilder& b, std::string empty_reason);

}  // namespace gpuscope::import::rocm
