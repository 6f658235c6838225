// memcpy-sync, memcpy-pageable, small-memcpy and memcpy-in-loop: host<->device copies.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

namespace {

bool HostSide(model::MemopKind k) {
  return k == model::MemopKind::kHtoD || k == model::MemopKind::kDtoH;
}

model::MemoryKind HostMemory(const Trace& t, size_t m) {
  return t.memops.kind[m] == model::MemopKind::kHtoD ? t.memops.src[m] : t.memops.dst[m];
}

// Bytes per ns of pinned copies in each direction, measured in this trace (0: none seen).
std::map<model::MemopKind, double> PinnedBandwidth(const Trace& t) {
  std::map<model::MemopKind, std::pair<double, double>> sum;
  for (size_t m = 0; m < t.memops.size(); ++m) {
    if (!HostSide(t.memops.kind[m]) || HostMemory(t, m) != model::MemoryKind::kPinned ||
        t.memops.bytes[m] <= 0 || t.memops.dur_ns[m] <= 0)
      continue;
    auto& s = sum[t.memops.kind[m]];
    s.first += static_cast<double>(t.memops.bytes[m]);
    s.second += static_cast<double>(t.memops.dur_ns[m]);
  }
  std::map<model::MemopKind, double> bw;
  for (auto& [k, s] : sum) bw[k] = s.first / s.second;
  return bw;
}

// A group of copies charged to one finding.
struct Group {
  size_t n = 0;
  int64_t ns = 0, bytes = 0, api_ns = 0;
  std::map<std::pair<std::string, std::string>, int64_t> where;
  std::vector<size_t> rows;
  WhatIf fix;
};

}  // namespace

void Copies(const Context& c, Claims& claims, std::vector<Candidate>& out,
            AnalysisSummary& summary) {
  const Trace& t = c.t();
  const auto& mo = t.memops;
  auto pinned = PinnedBandwidth(t);
  // The copy duration at pinned speed: bytes at the bandwidth this trace's pinned copies reach,
  // else half the pageable time (pageable copies are staged and run at about half the speed).
  auto pinned_dur = [&](size_t m) {
    auto it = pinned.find(mo.kind[m]);
    if (it != pinned.end() && mo.bytes[m] > 0)
      return std::min(mo.dur_ns[m],
                      static_cast<int64_t>(static_cast<double>(mo.bytes[m]) / it->second));
    return mo.dur_ns[m] / 2;
  };
  auto add = [&](Group& g, size_t m, int64_t weight) {
    ++g.n;
    g.ns += mo.dur_ns[m];
    g.bytes += std::max<int64_t>(0, mo.bytes[m]);
    RowId l = mo.launch[m];
    if (l != kNoRow) g.api_ns += t.api.dur_ns[l];
    Where w = c.at().Memop(m);
    g.where[{w.python, w.op}] += weight;
    if (g.rows.size() < 256) g.rows.push_back(m);
  };
  // The next call on the same thread: an async copy followed by a synchronize blocks too.
  std::vector<RowId> next_on_thread(t.api.size(), kNoRow);
  {
    std::unordered_map<model::TrackId, RowId> last;
    for (size_t i = 0; i < t.api.size(); ++i) {
      if (t.api.domain[i] == model::ApiDomain::kOs) continue;
      auto it = last.find(t.api.track[i]);
      if (it != last.end()) next_on_thread[it->second] = static_cast<RowId>(i);
      last[t.api.track[i]] = static_cast<RowId>(i);
    }
  }
  std::vector<size_t> in_window;
  size_t host_unknown = 0;
  for (size_t m = 0; m < mo.size(); ++m) {
    if (!c.GpuIn(mo.start_ns[m], mo.launch[m]) || mo.kind[m] == model::MemopKind::kMemset) continue;
    in_window.push_back(m);
    model::MemoryKind host = HostMemory(t, m);
    if (HostSide(mo.kind[m]) &&
        (host == model::MemoryKind::kHost || host == model::MemoryKind::kUnknown))
      ++host_unknown;
  }
  summary.host_pinning =
      host_unknown ? base::FormatCount(host_unknown) +
                         " host<->device copies with pinning not recorded by the tool (unknown)"
                   : "known";

  Group sync, pageable, small, loop;
  for (size_t m : in_window) {  // memcpy-sync
    RowId l = mo.launch[m];
    if (l == kNoRow || claims.MemopTaken(m)) continue;
    std::string_view api = t.str(t.api.name[l]);
    if (!IsCopyApi(api)) continue;
    bool is_pageable = HostSide(mo.kind[m]) && HostMemory(t, m) == model::MemoryKind::kPageable;
    bool async = api.find("Async") != std::string_view::npos;
    RowId next = next_on_thread[l];
    bool then_sync = async && !is_pageable && next != kNoRow && IsSyncApi(t.str(t.api.name[next]));
    if (async && !is_pageable && !then_sync) continue;
    if (!claims.TakeApi(l)) continue;
    claims.TakeMemop(m);
    add(sync, m, then_sync ? t.api.dur_ns[next] : t.api.dur_ns[l]);
    sync.fix.unblock_api.push_back(l);
    claims.Explain(t.api.start_ns[l], t.api.end_ns(l));
    if (then_sync && claims.TakeApi(next)) {
      sync.fix.unblock_api.push_back(next);
      sync.api_ns += t.api.dur_ns[next];
      claims.Explain(t.api.start_ns[next], t.api.end_ns(next));
    }
    if (is_pageable) sync.fix.memop_dur.emplace_back(m, pinned_dur(m));
  }
  for (size_t m : in_window) {  // memcpy-pageable (the pageable copies that do not block)
    if (!HostSide(mo.kind[m]) || HostMemory(t, m) != model::MemoryKind::kPageable ||
        !claims.TakeMemop(m))
      continue;
    add(pageable, m, mo.dur_ns[m]);
    pageable.fix.memop_dur.emplace_back(m, pinned_dur(m));
    if (mo.launch[m] != kNoRow && claims.TakeApi(mo.launch[m]))
      pageable.fix.unblock_api.push_back(mo.launch[m]);
  }
  std::map<int64_t, size_t> per_iteration;
  std::vector<size_t> small_all;
  for (size_t m : in_window) {  // small-memcpy: launch calls not claimed above
    RowId l = mo.launch[m];
    if (mo.bytes[m] < 0 || mo.bytes[m] >= c.o().small_copy_bytes || l == kNoRow ||
        claims.ApiTaken(l))
      continue;
    add(small, m, t.api.dur_ns[l]);
    small_all.push_back(m);
    // Batched into one copy per iteration: every call but the first goes away.
    if (per_iteration[c.Iteration(mo.start_ns[m])]++ > 0) {
      small.fix.api_dur.emplace_back(l, 0);
      small.fix.unblock_api.push_back(l);
    }
  }
  double small_per_iter = c.PerIteration(static_cast<double>(small.n));
  bool small_fires = small.n && small_per_iter >= c.o().small_copies_per_iteration;
  if (small_fires) {
    for (size_t m : small_all) claims.TakeApi(mo.launch[m]), claims.TakeMemop(m);
  }
  for (size_t m : in_window) {  // memcpy-in-loop: the copies left
    if (c.steady().iterations.empty() || !HostSide(mo.kind[m]) || claims.MemopTaken(m)) continue;
    claims.TakeMemop(m);
    add(loop, m, mo.dur_ns[m]);
    loop.fix.prefetch_memops.push_back(m);
  }

  auto emit = [&](const char* rule, Group& g, std::string detail, std::string what) {
    Candidate cand{Make(c, rule, 0), std::move(g.fix)};
    Finding& f = cand.finding;
    auto w = std::max_element(g.where.begin(), g.where.end(),
                              [](auto& x, auto& y) { return x.second < y.second; });
    f.where.python = w->first.first;
    f.where.op = w->first.second;
    f.detail = std::move(detail);
    cand.fix.what = std::move(what);
    std::sort(g.rows.begin(), g.rows.end(),
              [&](size_t x, size_t y) { return mo.dur_ns[x] > mo.dur_ns[y]; });
    for (size_t m : g.rows) {
      RowId l = mo.launch[m];
      AddEvidence(
          c, f, mo.start_ns[m], mo.dur_ns[m],
          std::string(t.str(mo.name[m])) + ", " +
              (mo.bytes[m] >= 0 ? base::FormatBytes(mo.bytes[m]) : std::string("size unknown")) +
              (l != kNoRow ? " by " + std::string(t.str(t.api.name[l])) : ""));
    }
    out.push_back(std::move(cand));
  };
  std::string speed = pinned.empty() ? "half their time (no pinned copy in the trace to measure)"
                                     : "the pinned bandwidth measured in this trace";
  if (sync.n) {
    emit("memcpy-sync", sync,
         base::FormatCount(sync.n) + " copies block the host (" +
             c.PerIterationText(static_cast<double>(sync.n)) + "), " +
             base::FormatDuration(sync.api_ns) + " in their calls",
         "pinned + non_blocking: the host no longer waits for these copies; pageable ones run "
         "at " +
             speed);
  }
  if (pageable.n) {
    emit("memcpy-pageable", pageable,
         base::FormatCount(pageable.n) + " copies from/to pageable memory, " +
             base::FormatBytes(pageable.bytes) + ", " + base::FormatDuration(pageable.ns) +
             " on the GPU",
         "pinned host memory: the copies run at " + speed);
  }
  if (small_fires) {
    emit("small-memcpy", small,
         base::FormatCount(small.n) + " copies < " + base::FormatBytes(c.o().small_copy_bytes) +
             " (" + c.PerIterationText(static_cast<double>(small.n)) + "), " +
             base::FormatDuration(small.api_ns) + " in their calls",
         "batched: one copy call per iteration instead of each of these");
  }
  if (loop.n) {
    emit("memcpy-in-loop", loop,
         base::FormatCount(loop.n) + " host<->device copies (" +
             c.PerIterationText(static_cast<double>(loop.n)) + "), " +
             base::FormatBytes(loop.bytes) + ", " + base::FormatDuration(loop.ns) + " on the GPU",
         "prefetched on a side stream: the work after each copy no longer waits for it");
  }
}

}  // namespace gpuscope::analysis::internal
