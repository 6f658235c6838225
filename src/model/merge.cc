#include "model/merge.h"

#include <algorithm>
#include <functional>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "base/allocator_tuning.h"
#include "base/parallel.h"

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

// A column of `dst` and the same column of every source: appending them is one job.
struct ColumnJob {
  size_t bytes = 0;  // what the job copies: the longest jobs start first
  std::function<void()> run;
};

// One job per column of a table: the column grows once, to its total, takes every source's
// column in order, and frees each as soon as it is copied.
template <typename Table>
void AddColumnJobs(Table& dst, const std::vector<Trace*>& srcs, Table Trace::*table,
                   std::vector<ColumnJob>* jobs) {
  std::vector<std::vector<void*>> cols(srcs.size());
  for (size_t s = 0; s < srcs.size(); ++s)
    (srcs[s]->*table).ForEachColumn([&](auto& col) { cols[s].push_back(&col); });
  size_t k = 0;
  dst.ForEachColumn([&](auto& col) {
    using Col = std::decay_t<decltype(col)>;
    std::vector<Col*> from;
    size_t total = col.size();
    for (const auto& c : cols) {
      from.push_back(static_cast<Col*>(c[k]));
      total += from.back()->size();
    }
    jobs->push_back({(total - col.size()) * sizeof(typename Col::value_type), [&col, from, total] {
                       col.reserve(total);
                       size_t freed = 0;
                       for (Col* f : from) {
                         col.insert(col.end(), f->begin(), f->end());
                         freed += f->capacity() * sizeof(typename Col::value_type);
                         Col().swap(*f);
                       }
                       // A source column under the mmap threshold sits in its thread's arena
                       // when freed: handed back now, not after the last column, it does not
                       // add to the merge's peak (218 -> 189 MB on the 1 GB trace).
                       if (freed >= (1 << 20)) base::ReleaseFreedMemory();
                     }});
    ++k;
  });
}

}  // namespace

void ReserveScaled(Trace& t, double factor) {
  if (!(factor > 1.0)) return;
  auto reserve = [factor](auto& table) {
    table.ForEachColumn([factor](auto& col) {
      const double rows = static_cast<double>(col.size()) * factor + 16;
      // Room is an optimisation: where it cannot be had (more rows than a vector holds, or
      // than the machine lends: a file whose first events are far smaller than the rest), the
      // column grows as it fills.
      if (!(rows < static_cast<double>(col.max_size()))) return;
      try {
        col.reserve(static_cast<size_t>(rows));
      } catch (const std::bad_alloc&) {
      } catch (const std::length_error&) {
      }
    });
  };
  reserve(t.kernels), reserve(t.memops), reserve(t.api), reserve(t.cpu), reserve(t.python);
  reserve(t.gpu_ranges), reserve(t.counters), reserve(t.instants), reserve(t.memory);
}

void AppendTraces(Trace& dst, const std::vector<Trace*>& srcs, const MergeOptions& options) {
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
  // Every column is a job of its own: on a large merge (a 1 GB file's segments) the copies run
  // on every core, with the longest first.
  std::vector<ColumnJob> jobs;
  AddColumnJobs(dst.kernels, srcs, &Trace::kernels, &jobs);
  AddColumnJobs(dst.memops, srcs, &Trace::memops, &jobs);
  AddColumnJobs(dst.api, srcs, &Trace::api, &jobs);
  AddColumnJobs(dst.cpu, srcs, &Trace::cpu, &jobs);
  AddColumnJobs(dst.python, srcs, &Trace::python, &jobs);
  AddColumnJobs(dst.gpu_ranges, srcs, &Trace::gpu_ranges, &jobs);
  AddColumnJobs(dst.counters, srcs, &Trace::counters, &jobs);
  AddColumnJobs(dst.instants, srcs, &Trace::instants, &jobs);
  AddColumnJobs(dst.memory, srcs, &Trace::memory, &jobs);
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const ColumnJob& a, const ColumnJob& b) { return a.bytes > b.bytes; });
  size_t bytes = 0;
  std::vector<std::function<void()>> runs;
  for (ColumnJob& j : jobs) {
    bytes += j.bytes;
    runs.push_back(std::move(j.run));
  }
  const int threads = base::ThreadsFor(options.threads);
  base::RunJobs(runs, bytes >= options.parallel_min_bytes ? threads : 1);
  base::ReleaseFreedMemory();  // the sources' columns came from their threads' arenas
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
