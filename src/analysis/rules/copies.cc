// memcpy-in-loop, memcpy-sync, memcpy-pageable and small-memcpy: host<->device copies.

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

void Copies(const Context& c, std::vector<Finding>& out, AnalysisSummary& summary) {
  const Trace& t = c.t();
  struct Acc {
    size_t n = 0;
    int64_t ns = 0, bytes = 0, api_ns = 0, exposed = 0;
    std::map<std::pair<std::string, std::string>, int64_t> where;
    std::vector<size_t> rows;
  };
  Acc loop, sync, pageable, small;
  size_t host_unknown = 0;
  auto add = [&](Acc& a, size_t m, int64_t weight) {
    ++a.n;
    a.ns += t.memops.dur_ns[m];
    a.bytes += std::max<int64_t>(0, t.memops.bytes[m]);
    RowId l = t.memops.launch[m];
    if (l != kNoRow) a.api_ns += t.api.dur_ns[l];
    Where w = c.at().Memop(m);
    a.where[{w.python, w.op}] += weight;
    if (a.rows.size() < 256) a.rows.push_back(m);
  };
  // The next API call on the same thread: an async copy followed by a synchronize blocks too.
  std::vector<RowId> next_on_thread;
  if (t.memops.size()) {
    next_on_thread.assign(t.api.size(), kNoRow);
    std::unordered_map<model::TrackId, RowId> last;
    for (size_t i = 0; i < t.api.size(); ++i) {
      if (t.api.domain[i] == model::ApiDomain::kOs) continue;
      auto it = last.find(t.api.track[i]);
      if (it != last.end()) next_on_thread[it->second] = static_cast<RowId>(i);
      last[t.api.track[i]] = static_cast<RowId>(i);
    }
  }
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (!c.In(t.memops.start_ns[m]) || t.memops.kind[m] == model::MemopKind::kMemset) continue;
    auto kind = t.memops.kind[m];
    bool host_side = kind == model::MemopKind::kHtoD || kind == model::MemopKind::kDtoH;
    model::MemoryKind host = kind == model::MemopKind::kHtoD ? t.memops.src[m] : t.memops.dst[m];
    if (host_side) {
      add(loop, m, t.memops.dur_ns[m]);
      loop.exposed += c.Exposed(t.memops.device[m], t.memops.start_ns[m], t.memops.end_ns(m));
    }
    bool is_pageable = host_side && host == model::MemoryKind::kPageable;
    if (host_side && (host == model::MemoryKind::kHost || host == model::MemoryKind::kUnknown))
      ++host_unknown;
    if (is_pageable) add(pageable, m, t.memops.dur_ns[m]);
    RowId l = t.memops.launch[m];
    if (l != kNoRow) {
      std::string_view api = t.str(t.api.name[l]);
      bool async = api.find("Async") != std::string_view::npos;
      RowId next = next_on_thread[l];
      if (IsCopyApi(api) && (!async || is_pageable)) {
        add(sync, m, t.api.dur_ns[l]);
      } else if (IsCopyApi(api) && next != kNoRow && IsSyncApi(t.str(t.api.name[next]))) {
        add(sync, m, t.api.dur_ns[next]);  // blocked in the synchronize that follows it
        sync.api_ns += t.api.dur_ns[next] - t.api.dur_ns[l];
      }
    }
    if (t.memops.bytes[m] >= 0 && t.memops.bytes[m] < c.o().small_copy_bytes)
      add(small, m, l != kNoRow ? t.api.dur_ns[l] : 0);
  }
  summary.host_pinning =
      host_unknown ? base::FormatCount(host_unknown) +
                         " host<->device copies with pinning not recorded by the tool (unknown)"
                   : "known";
  auto top_where = [](const Acc& a) {
    auto it = std::max_element(a.where.begin(), a.where.end(),
                               [](auto& x, auto& y) { return x.second < y.second; });
    return it->first;
  };
  auto emit = [&](const char* rule, const Acc& a, int64_t impact, std::string detail) {
    Finding f = Make(c, rule, impact);
    auto w = top_where(a);
    f.where.python = w.first;
    f.where.op = w.second;
    f.detail = std::move(detail);
    std::vector<size_t> rows = a.rows;
    std::sort(rows.begin(), rows.end(),
              [&](size_t x, size_t y) { return t.memops.dur_ns[x] > t.memops.dur_ns[y]; });
    for (size_t m : rows) {
      RowId l = t.memops.launch[m];
      AddEvidence(c, f, t.memops.start_ns[m], t.memops.dur_ns[m],
                  std::string(t.str(t.memops.name[m])) + ", " +
                      (t.memops.bytes[m] >= 0 ? base::FormatBytes(t.memops.bytes[m])
                                              : std::string("size unknown")) +
                      (l != kNoRow ? " by " + std::string(t.str(t.api.name[l])) : ""));
    }
    out.push_back(std::move(f));
  };
  if (loop.n && !c.steady().iterations.empty()) {
    emit("memcpy-in-loop", loop, loop.exposed,
         base::FormatCount(loop.n) + " host<->device copies (" +
             c.PerIterationText(static_cast<double>(loop.n)) + "), " +
             base::FormatBytes(loop.bytes) + ", " + base::FormatDuration(loop.ns) +
             " on the GPU, " + base::FormatDuration(loop.exposed) +
             " of it not overlapped by kernels");
  }
  if (sync.n) {
    emit("memcpy-sync", sync, sync.api_ns,
         base::FormatCount(sync.n) + " copies block the host (" +
             c.PerIterationText(static_cast<double>(sync.n)) + "), " +
             base::FormatDuration(sync.api_ns) + " in their calls");
  }
  if (pageable.n) {
    emit("memcpy-pageable", pageable, pageable.ns / 2,
         base::FormatCount(pageable.n) + " copies from/to pageable memory, " +
             base::FormatBytes(pageable.bytes) + ", " + base::FormatDuration(pageable.ns) +
             " on the GPU (impact: estimated half of it)");
  }
  double small_per_iter = c.PerIteration(static_cast<double>(small.n));
  if (small.n && small_per_iter >= c.o().small_copies_per_iteration) {
    emit("small-memcpy", small,
         static_cast<int64_t>(static_cast<double>(small.api_ns) * (1.0 - 1.0 / small_per_iter)),
         base::FormatCount(small.n) + " copies < " + base::FormatBytes(c.o().small_copy_bytes) +
             " (" + c.PerIterationText(static_cast<double>(small.n)) + "), " +
             base::FormatDuration(small.api_ns) + " in their calls");
  }
}

}  // namespace gpuscope::analysis::internal
