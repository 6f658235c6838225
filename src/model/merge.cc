#include "model/merge.h"

#include <type_traits>

#include "base/allocator_tuning.h"

namespace gpuscope::model {
namespace {

// A source's ids rewritten to the destination's, in place: names through `names` (the pool's
// Absorb), tracks through `tracks`.
void RemapIds(Trace& src, const std::vector<StringId>& names, const std::vector<TrackId>& tracks) {
  auto named = [&](auto& table) {
    for (auto& n : table.name) n = names[n];
    for (auto& t : table.track) t = tracks[t];
  };
  named(src.kernels), named(src.memops), named(src.api), named(src.cpu), named(src.python);
  named(src.gpu_ranges), named(src.counters), named(src.instants);
  for (auto& a : src.cpu.args) a = names[a];
  for (auto& t : src.memory.track) t = tracks[t];
  for (auto& l : src.launch_args) l.kernel = names[l.kernel];
  for (auto& [pid, name] : src.process_names) name = names[name];
}

// Appends one table of every source to `dst`'s, a column at a time across the sources.
template <typename Table>
void AppendColumns(Table& dst, const std::vector<Trace*>& srcs, Table Trace::*table) {
  std::vector<std::vector<void*>> cols(srcs.size());
  for (size_t s = 0; s < srcs.size(); ++s)
    (srcs[s]->*table).ForEachColumn([&](auto& col) { cols[s].push_back(&col); });
  size_t k = 0;
  dst.ForEachColumn([&](auto& col) {
    using Col = std::decay_t<decltype(col)>;
    size_t total = col.size();
    for (const auto& c : cols) total += static_cast<Col*>(c[k])->size();
    col.reserve(total);
    for (const auto& c : cols) {
      auto* from = static_cast<Col*>(c[k]);
      col.insert(col.end(), from->begin(), from->end());
      Col().swap(*from);
    }
    ++k;
  });
  base::ReleaseFreedMemory();  // the sources' columns came from their threads' arenas
}

}  // namespace

void ShrinkToFit(Trace& t) {
  auto shrink = [](auto& table) { table.ForEachColumn([](auto& col) { col.shrink_to_fit(); }); };
  shrink(t.kernels), shrink(t.memops), shrink(t.api), shrink(t.cpu), shrink(t.python);
  shrink(t.gpu_ranges), shrink(t.counters), shrink(t.instants), shrink(t.memory);
}

void AppendTraces(Trace& dst, const std::vector<Trace*>& srcs) {
  for (Trace* src : srcs) {
    std::vector<StringId> names = dst.strings.Absorb(std::move(src->strings));
    std::vector<TrackId> tracks(src->tracks.size());
    for (size_t i = 0; i < tracks.size(); ++i) {
      const Track& t = src->tracks[i];
      tracks[i] = dst.InternTrack(t.kind, dst.str(names[t.pid_text]), dst.str(names[t.tid_text]));
      Track& d = dst.tracks[tracks[i]];
      if (d.name == 0 && t.name != 0) d.name = names[t.name];
    }
    RemapIds(*src, names, tracks);
    base::ReleaseFreedMemory();  // its pool's index and views
  }
  AppendColumns(dst.kernels, srcs, &Trace::kernels);
  AppendColumns(dst.memops, srcs, &Trace::memops);
  AppendColumns(dst.api, srcs, &Trace::api);
  AppendColumns(dst.cpu, srcs, &Trace::cpu);
  AppendColumns(dst.python, srcs, &Trace::python);
  AppendColumns(dst.gpu_ranges, srcs, &Trace::gpu_ranges);
  AppendColumns(dst.counters, srcs, &Trace::counters);
  AppendColumns(dst.instants, srcs, &Trace::instants);
  AppendColumns(dst.memory, srcs, &Trace::memory);
  for (Trace* src : srcs) {
    dst.launch_args.insert(dst.launch_args.end(), src->launch_args.begin(), src->launch_args.end());
    for (const auto& [pid, name] : src->process_names) dst.process_names.emplace(pid, name);
    for (auto& d : src->devices) dst.devices.push_back(std::move(d));
    dst.problems.Merge(src->problems);
    for (const auto& [k, v] : src->record_counts) dst.record_counts[k] += v;
    dst.meta.clamped_zero_events += src->meta.clamped_zero_events;
    dst.meta.AddOverhead(src->meta.profiler_overhead_ns);
    *src = Trace();
  }
}

}  // namespace gpuscope::model
