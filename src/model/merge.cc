#include "model/merge.h"

#include <functional>
#include <type_traits>
#include <vector>

namespace gpuscope::model {
namespace {

// Appends src's slice columns to dst's with ids remapped, then the table-specific columns.
template <typename Table>
void AppendSlices(Table& dst, Table& src, const std::vector<StringId>& names,
                  const std::vector<TrackId>& tracks) {
  for (auto& n : src.name) n = names[n];
  for (auto& t : src.track) t = tracks[t];
  // Column-wise append, freeing each source column as soon as it is copied.
  size_t k = 0;
  std::vector<void*> dst_cols;
  dst.ForEachColumn([&](auto& col) { dst_cols.push_back(&col); });
  src.ForEachColumn([&](auto& col) {
    using Col = std::decay_t<decltype(col)>;
    auto* d = static_cast<Col*>(dst_cols[k++]);
    d->insert(d->end(), col.begin(), col.end());
    Col().swap(col);
  });
}

}  // namespace

void AppendTrace(Trace& dst, Trace&& src) {
  std::vector<StringId> names = dst.strings.Absorb(std::move(src.strings));
  std::vector<TrackId> tracks(src.tracks.size());
  for (size_t i = 0; i < tracks.size(); ++i) {
    const Track& t = src.tracks[i];
    tracks[i] = dst.InternTrack(t.kind, dst.str(names[t.pid_text]), dst.str(names[t.tid_text]));
    Track& d = dst.tracks[tracks[i]];
    if (d.name == 0 && t.name != 0) d.name = names[t.name];
  }
  AppendSlices(dst.kernels, src.kernels, names, tracks);
  AppendSlices(dst.memops, src.memops, names, tracks);
  AppendSlices(dst.api, src.api, names, tracks);
  for (auto& a : src.cpu.args) a = names[a];
  AppendSlices(dst.cpu, src.cpu, names, tracks);
  AppendSlices(dst.python, src.python, names, tracks);
  AppendSlices(dst.gpu_ranges, src.gpu_ranges, names, tracks);
  for (auto& n : src.counters.name) n = names[n];
  for (auto& t : src.counters.track) t = tracks[t];
  for (size_t i = 0; i < src.counters.size(); ++i) {
    dst.counters.Append(src.counters.ts_ns[i], src.counters.value[i], src.counters.name[i],
                        src.counters.track[i]);
  }
  for (size_t i = 0; i < src.instants.size(); ++i) {
    dst.instants.Append(src.instants.ts_ns[i], names[src.instants.name[i]],
                        tracks[src.instants.track[i]]);
  }
  for (size_t i = 0; i < src.memory.size(); ++i) {
    const auto& m = src.memory;
    dst.memory.Append({m.ts_ns[i], m.bytes[i], m.allocated[i], m.reserved[i], m.addr[i],
                       tracks[m.track[i]], m.device[i]});
  }
  for (auto l : src.launch_args) {
    l.kernel = names[l.kernel];
    dst.launch_args.push_back(l);
  }
  for (const auto& [pid, name] : src.process_names) {
    dst.process_names.emplace(pid, names[name]);
  }
  for (auto& d : src.devices) dst.devices.push_back(std::move(d));
  dst.problems.Merge(src.problems);
  for (const auto& [k, v] : src.record_counts) dst.record_counts[k] += v;
  dst.meta.clamped_zero_events += src.meta.clamped_zero_events;
  // Released now, not when the caller drops it: merging segments one by one then holds one
  // segment beside the result, not all of them.
  src = Trace();
}

}  // namespace gpuscope::model
