// The records of one process resolved into model rows (kernels, copies, API calls, markers).

#include "import/common/rocm_names.h"
#include "import/rocprofv3/rocprofv3_json_reader.h"

namespace gpuscope::import::rocprofv3 {

using namespace rocm;  // the ROCm name classifiers
using model::Trace;

void ProcessReader::Build() {
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
    int64_t dur = model::DurationBetween(r.start, r.end);
    uint64_t corr = offset_ + static_cast<uint64_t>(r.corr);
    switch (r.type) {
      case Record::Type::kKernel: {
        model::KernelRow row;
        row.start_ns = r.start;
        row.dur_ns = dur;
        row.correlation = corr;
        int64_t dev = node(r.agent);
        row.device = static_cast<int16_t>(dev);
        row.track = t_.InternTrack(model::TrackKind::kGpuStream, std::to_string(dev),
                                   std::to_string(r.queue));
        auto [it, inserted] = symbol_names.emplace(r.kernel_id, 0);
        if (inserted) {
          auto s = symbols_.find(r.kernel_id);
          if (s == symbols_.end()) {
            t_.problems.Add(
                model::ProblemKind::kRocprofv3UnknownKernelId,
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
        model::TrackId track =
            t_.InternTrack(model::TrackKind::kCpuThread, pid_text, std::to_string(r.tid));
        if (kind.rfind("MARKER", 0) == 0) {
          auto msg = markers_.find(r.corr);
          std::string_view text = msg != markers_.end() ? std::string_view(msg->second)
                                                        : OperationName(r.kind, r.operation);
          if (dur == 0) {
            t_.instants.Append(r.start, t_.strings.Intern(text), track);
          } else {
            auto row =
                model::MakeSlice<model::CpuRangeRow>(r.start, dur, t_.strings.Intern(text), track);
            row.kind = model::CpuRangeKind::kAnnotation;
            t_.cpu.Append(row);
          }
          break;
        }
        auto row = model::MakeSlice<model::ApiRow>(
            r.start, dur, t_.strings.Intern(OperationName(r.kind, r.operation)), track);
        row.correlation = corr;
        row.domain =
            kind.rfind("HSA", 0) == 0 ? model::ApiDomain::kHsa : model::ApiDomain::kRuntime;
        t_.api.Append(row);
        break;
      }
    }
  }
}

std::string_view ProcessReader::KindName(int64_t kind) const {
  return kind >= 0 && static_cast<size_t>(kind) < kinds_.size()
             ? std::string_view(kinds_[kind].first)
             : "";
}

std::string_view ProcessReader::OperationName(int64_t kind, int64_t op) const {
  if (kind < 0 || static_cast<size_t>(kind) >= kinds_.size()) return "<unknown kind>";
  const auto& ops = kinds_[kind].second;
  return op >= 0 && static_cast<size_t>(op) < ops.size() ? std::string_view(ops[op])
                                                         : "<unknown operation>";
}

}  // namespace gpuscope::import::rocprofv3
