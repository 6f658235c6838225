#include "output/profiler_db_common.h"

#include <algorithm>
#include <map>

#include "format/emit_nvtx.h"
#include "model/op_args.h"
#include "output/json_writer.h"

namespace gpuscope::output::profiler_db {

namespace {

void AppendDims(std::string& out, const std::vector<int64_t>& dims) {
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  out += ']';
}

}  // namespace

std::string OpRangeText(const model::Trace& t, size_t cpu_row) {
  std::string sizes;
  model::OpArgs args;
  if (t.cpu.args[cpu_row] && model::DecodeOpArgs(t.str(t.cpu.args[cpu_row]), &args) &&
      !args.shapes.empty()) {
    sizes += '[';
    for (size_t i = 0; i < args.shapes.size(); ++i) {
      if (i) sizes += ", ";
      const model::ArgShape& s = args.shapes[i];
      if (s.list.empty()) {
        AppendDims(sizes, s.dims);
        continue;
      }
      sizes += '[';
      for (size_t j = 0; j < s.list.size(); ++j) {
        if (j) sizes += ", ";
        AppendDims(sizes, s.list[j]);
      }
      sizes += ']';
    }
    sizes += ']';
  }
  return format::emit_nvtx::Text(t.str(t.cpu.name[cpu_row]), cpu_row + 1, sizes);
}

void BindCorrelation(base::SqliteBatchInsert& q, int index, uint64_t correlation) {
  if (correlation == model::kNoCorrelation || correlation > uint64_t{INT64_MAX})
    q.BindNull(index);
  else
    q.Bind(index, static_cast<int64_t>(correlation));
}

int64_t MainPid(const model::Trace& t, const TrackLayout& layout) {
  std::map<int64_t, size_t> calls;  // layout pid -> API calls
  for (model::TrackId track : t.api.track) ++calls[layout.tracks[track].pid];
  if (!calls.empty()) {
    return std::max_element(calls.begin(), calls.end(),
                            [](auto& a, auto& b) { return a.second < b.second; })
        ->first;
  }
  int64_t lowest = 0;
  bool any = false;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    if (t.tracks[i].kind != model::TrackKind::kCpuThread) continue;
    lowest = any ? std::min(lowest, layout.tracks[i].pid) : layout.tracks[i].pid;
    any = true;
  }
  return lowest;
}

void Dropped(LossyWriteCounts& counts, std::string what, uint64_t n) {
  if (n > 0) counts.dropped.emplace_back(std::move(what), n);
}

void CountCommonDrops(const model::Trace& t, LossyWriteCounts& counts) {
  Dropped(counts, "Python frames", t.python.size());
  uint64_t gpu_annotations = 0;
  for (size_t i = 0; i < t.gpu_ranges.size(); ++i)
    gpu_annotations += t.gpu_ranges.kind[i] != model::GpuRangeKind::kSync;
  Dropped(counts, "GPU-side annotation ranges", gpu_annotations);
  Dropped(counts, "counter samples", t.counters.size());
  Dropped(counts, "allocator memory events", t.memory.size());
}

uint64_t RecordedStreamWaits(const model::Trace& t) {
  uint64_t waits = 0;
  for (size_t i = 0; i < t.gpu_ranges.size(); ++i)
    waits += t.gpu_ranges.waits_on_record[i] != model::kNoCorrelation;
  return waits;
}

std::string JsonString(std::string_view text) {
  std::string out;
  JsonWriter::Escape(out, text);  // quotes included
  return out;
}

}  // namespace gpuscope::output::profiler_db
