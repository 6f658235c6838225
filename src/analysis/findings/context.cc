#include "analysis/findings/context.h"

#include <string>

#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "analysis/common/name_memo.h"
#include "analysis/findings/registry.h"
#include "analysis/replay/replay_graph.h"

namespace gpuscope::analysis::internal {

// Kernel-only busy intervals per device, merged (for the overlap of copies with compute).
void Context::BuildKernelBusy() {
  for (size_t i = 0; i < t_.kernels.size(); ++i)
    kernel_busy_[t_.kernels.device[i]].emplace_back(t_.kernels.start_ns[i], t_.kernels.end_ns(i));
  for (auto& [dev, v] : kernel_busy_) MergeIntervals(v), v.shrink_to_fit();
}

void Context::BuildTimeline() {
  struct Op {
    int64_t s, e;
    RowId launch;
  };
  std::map<int, std::vector<Op>> per_device;
  auto add = [&](int64_t s, int64_t d, int dev, RowId launch) {
    if (s + d <= w0_ || s >= w1_) return;
    per_device[dev].push_back({std::max(s, w0_), std::min(s + d, w1_), launch});
  };
  for (size_t i = 0; i < t_.kernels.size(); ++i)
    add(t_.kernels.start_ns[i], t_.kernels.dur_ns[i], t_.kernels.device[i], t_.kernels.launch[i]);
  for (size_t i = 0; i < t_.memops.size(); ++i)
    add(t_.memops.start_ns[i], t_.memops.dur_ns[i], t_.memops.device[i], t_.memops.launch[i]);
  devices_ = static_cast<int>(per_device.size());
  // The window's one-time time is the part of it in which the GPUs waited for the one-time costs:
  // GPU work that ran meanwhile (queued before them) is the steady part's.
  if (!masked_.empty()) {
    std::vector<Interval> busy;
    for (const auto& [dev, ops] : per_device)
      for (const Op& op : ops) busy.emplace_back(op.s, op.e);
    MergeIntervals(busy);
    masked_ns_ = 0;
    for (auto [s, e] : masked_) {
      s = std::max(s, w0_), e = std::min(e, w1_);
      if (e > s) masked_ns_ += (e - s) - CoveredWithin(busy, s, e);
    }
  }
  for (auto& [device, ops] : per_device) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.s < b.s; });
    int64_t cur_s = ops[0].s, cur_e = ops[0].e;
    const int32_t dev = device;  // a copy: lambdas cannot capture a structured binding (clang 14)
    // A gap's time inside one-time costs is not the steady part's: only its other pieces are.
    auto gap = [&](int64_t a, int64_t b, RowId launch) {
      auto it = std::upper_bound(masked_.begin(), masked_.end(), Interval(a, INT64_MAX));
      if (it != masked_.begin()) --it;  // the one starting before `a` may cover it
      for (; it != masked_.end() && it->first < b; ++it) {
        if (it->second <= a) continue;
        if (it->first > a) gaps_.push_back({a, it->first, launch, dev, 0, {}, kNoRow});
        a = std::max(a, it->second);
      }
      if (b > a) gaps_.push_back({a, b, launch, dev, 0, {}, kNoRow});
    };
    auto busy = [&](int64_t a, int64_t b) { busy_ += b - a; };
    gap(w0_, cur_s, ops[0].launch);
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i].s > cur_e) {
        busy(cur_s, cur_e);
        gap(cur_e, ops[i].s, ops[i].launch);
        cur_s = ops[i].s;
      }
      cur_e = std::max(cur_e, ops[i].e);
    }
    busy(cur_s, cur_e);
    gap(cur_e, w1_, kNoRow);
    std::vector<Op>().swap(ops);
  }
  gaps_.shrink_to_fit();
  std::sort(gaps_.begin(), gaps_.end(),
            [](const Gap& a, const Gap& b) { return a.start < b.start; });
  by_end_.resize(gaps_.size());
  for (uint32_t i = 0; i < gaps_.size(); ++i) {
    by_end_[i] = i, max_gap_ = std::max(max_gap_, gaps_[i].end - gaps_[i].start);
  }
  std::sort(by_end_.begin(), by_end_.end(), [&](uint32_t a, uint32_t b) {
    return std::pair(gaps_[a].end, a) < std::pair(gaps_[b].end, b);
  });
}

WhatIf Context::OneTimeFixOf(const SteadyState& steady, bool program_only, bool recording_only) {
  WhatIf fix;
  fix.what = "the one-time costs leave the window (done before it)";
  for (const OneTimePart& p : steady.one_time.parts) {
    if (recording_only && !p.before_trace) continue;
    if (p.before_trace) {
      if (program_only) continue;
      // The first op runs at the usual latency; a host wait before any recorded work ends.
      if (p.first_kernel != SIZE_MAX) fix.typical_latency.push_back(p.first_kernel);
      if (p.first_memop != SIZE_MAX) fix.typical_latency_memops.push_back(p.first_memop);
      if (p.first_kernel == SIZE_MAX && p.first_memop == SIZE_MAX)
        fix.host_scale.push_back({p.track, p.start_ns, p.end_ns, 0.0});
      continue;
    }
    if (p.call != kNoRow) {
      fix.api_dur.emplace_back(p.call, 0);
      if (p.first_kernel != SIZE_MAX) fix.typical_latency.push_back(p.first_kernel);
    } else {
      fix.host_scale.push_back({p.track, p.start_ns, p.end_ns, 0.0});
    }
  }
  return fix;
}

namespace {

// A top-level frame, or one that also holds the launch ending the gap, is the loop around
// everything (the script's <module>), not work that delays the GPU.
bool IsOuterFrame(const Context& c, size_t frame, const Gap& g) {
  const Trace& t = c.t();
  if (t.python.parent[frame] == kNoRow) return true;  // a top-level frame: the script itself
  if (g.next_launch == kNoRow) return false;
  int64_t launch = t.api.start_ns[g.next_launch];
  return launch >= t.python.start_ns[frame] && launch < t.python.end_ns(frame);
}

// The Context's id of a text made of a prefix and a trace name ("CPU op: " + the op's name, or
// the name alone), interned once per distinct name instead of once per gap.
auto NameTexts(Context& c, std::string_view prefix) {
  return NameMemo(c.t(), [&c, prefix = std::string(prefix)](std::string_view name) {
    return c.Intern(prefix + std::string(name));
  });
}

}  // namespace

void ClassifyGaps(Context& c) {
  const Trace& t = c.t();
  Sweep<model::ApiTable> apis(t.api);
  Sweep<model::CpuRangeTable> ops(t.cpu);
  Sweep<model::PythonFrameTable> frames(t.python);
  NameMemo sync_api(t, IsSyncApi), copy_api(t, IsCopyApi);  // once per distinct name
  NameMemo graph_launch(t, IsGraphLaunchApi), item_op(t, IsItemOp);
  NameMemo compiled_region(t, IsCompiledRegion);
  auto sync_cause = NameTexts(c, "host sync: "), copy_cause = NameTexts(c, "memory copy: ");
  auto op_cause = NameTexts(c, "CPU op: "), python_cause = NameTexts(c, "Python: ");
  auto name_text = NameTexts(c, "");
  const base::StringId no_text = c.Intern("");
  auto site_text = [&](uint64_t n) {  // a name of Attributor::SiteIds (none: the empty text)
    return n == Attributor::SiteIds::kNoName ? no_text : name_text(static_cast<model::StringId>(n));
  };
  // The innermost user frame's name holding a CPU op (Attributor::PythonOf), as a Context id.
  auto python_of = [&](RowId op) {
    const RowId f = c.at().UserFrameOfCpu(op);
    return f == kNoRow ? no_text : name_text(t.python.name[f]);
  };
  const base::StringId dispatch_gap = c.Intern(kDispatchGapCause), late = c.Intern("launch late");
  const base::StringId nothing_queued =
      c.Intern("no GPU work queued (end of window / unlinked op)");
  const base::StringId unknown = c.Intern("unknown");
  const std::vector<size_t> no_rows;
  for (Gap& g : c.gaps()) {
    int64_t len = g.end - g.start;
    model::TrackId thread = g.next_launch != kNoRow ? t.api.track[g.next_launch] : UINT32_MAX;
    auto on_thread = [&](model::TrackId tr) { return thread == UINT32_MAX || tr == thread; };
    bool launch_late = g.next_launch != kNoRow && t.api.start_ns[g.next_launch] >= g.start;
    // The op after the gap was submitted before the gap began (its launch call had returned, or
    // a graph launch had started) and the gap is as short as a dispatch gap: the GPU left it
    // between queued work, whatever the host did meanwhile. (A longer one waited for something:
    // classified by what the host did, as any other.)
    bool queued = false;
    if (g.next_launch != kNoRow && len <= kMaxDispatchGapNs) {
      bool graph = graph_launch(t.api.name[g.next_launch]);
      queued = (graph ? t.api.start_ns[g.next_launch] : t.api.end_ns(g.next_launch)) <= g.start;
    }
    // The calls and the Python frames are read only when the cause can be theirs (most gaps of
    // a GPU-bound run are queued work): a sweep skipped catches up at its next query.
    int64_t sync = 0, copy = 0;
    model::StringId sync_name = 0, copy_name = 0;  // the longest sync and copy calls' names
    for (size_t r : queued ? no_rows : apis.Overlapping(g.start, g.end)) {
      if (t.api.domain[r] == model::ApiDomain::kOs || !on_thread(t.api.track[r])) continue;
      const model::StringId n = t.api.name[r];
      int64_t o = Overlap(t.api.start_ns[r], t.api.end_ns(r), g.start, g.end);
      if (sync_api(n) && o > sync)
        sync = o, sync_name = n;
      else if (copy_api(n) && o > copy)
        copy = o, copy_name = n;
    }
    size_t best = SIZE_MAX;
    int64_t best_overlap = 0;
    int best_depth = -1;
    for (size_t r : ops.Overlapping(g.start, g.end)) {
      if (t.cpu.kind[r] != model::CpuRangeKind::kOp || !on_thread(t.cpu.track[r])) continue;
      int64_t o = Overlap(t.cpu.start_ns[r], t.cpu.end_ns(r), g.start, g.end);
      // The deepest op that covers at least half the gap, else the one covering most of it.
      bool covers = 2 * o >= len;
      bool better = covers ? (best_overlap * 2 < len || t.cpu.depth[r] > best_depth)
                           : (best_overlap * 2 < len && o > best_overlap);
      if (better) best = r, best_overlap = o, best_depth = t.cpu.depth[r];
    }
    // Host time inside a torch.compile region is the region's: its ops (aten::slice ...) are
    // the compiled graph's, not lines a user wrote.
    const bool item = best != SIZE_MAX && item_op(t.cpu.name[best]);
    for (RowId r = best == SIZE_MAX || item ? kNoRow : static_cast<RowId>(best); r != kNoRow;
         r = t.cpu.parent[r]) {
      if (compiled_region(t.cpu.name[r])) {
        best = r;
        break;
      }
    }
    // The innermost user Python frame covering at least half the gap (Python work between ops).
    auto innermost_frame = [&] {
      size_t frame = SIZE_MAX;
      for (size_t r : frames.Overlapping(g.start, g.end)) {
        if (!on_thread(t.python.track[r]) || c.at().UserFrame(static_cast<RowId>(r)) != r) continue;
        int64_t o = Overlap(t.python.start_ns[r], t.python.end_ns(r), g.start, g.end);
        if (2 * o >= len && (frame == SIZE_MAX || t.python.start_ns[r] >= t.python.start_ns[frame]))
          frame = r;
      }
      return frame;
    };
    size_t frame = SIZE_MAX;
    bool python = false;
    if (queued) {
      g.cause = dispatch_gap;
    } else if (2 * sync >= len) {
      g.cause = sync_cause(sync_name);
    } else if (best != SIZE_MAX && item_op(t.cpu.name[best]) && 2 * best_overlap >= len) {
      g.cause = sync_cause(t.cpu.name[best]);
    } else if (2 * copy >= len) {
      g.cause = copy_cause(copy_name);
    } else if (best != SIZE_MAX && 2 * best_overlap >= len) {
      g.cause = op_cause(t.cpu.name[best]);
    } else if ((frame = innermost_frame()) != SIZE_MAX && !IsOuterFrame(c, frame, g)) {
      g.cause = python_cause(t.python.name[frame]);
      python = true;
    } else if (launch_late) {
      g.cause = late;
    } else if (g.next_launch == kNoRow && t.api.size() > 0) {
      g.cause = nothing_queued;
    } else {
      g.cause = unknown;
    }
    if (python) {
      g.where.python = name_text(t.python.name[frame]);
    } else if (best != SIZE_MAX) {
      g.op = static_cast<RowId>(best);
      g.where.op = name_text(t.cpu.name[best]);
      g.where.python = python_of(static_cast<RowId>(best));
    } else if (g.next_launch != kNoRow) {
      // The launch call's enclosing op and its user frame (Attributor::Api), none: empty.
      const Attributor::SiteIds site = c.at().ApiSite(g.next_launch);
      g.where.python = site_text(site.python);
      g.where.op = site_text(site.op);
    }
  }
}

bool Claims::Explains(int64_t start, int64_t end) {
  if (!sorted_) MergeIntervals(spans_), sorted_ = true;
  return 2 * CoveredWithin(spans_, start, end) >= end - start;
}

Finding Make(const Context& c, std::string_view rule, int64_t impact) {
  Finding f;
  const RuleInfo* info = FindRule(rule);
  f.rule = std::string(rule);
  f.title = std::string(info->title);
  f.advice = AdviceFor(*info, c.ecosystem());
  f.impact_ns = impact;
  f.impact_percent = c.Percent(impact);
  f.severity = SeverityFor(f.impact_percent);
  return f;
}

void AddEvidence(const Context& c, Finding& f, int64_t start, int64_t dur, std::string what) {
  if (f.evidence.size() >= c.o().evidence) return;
  f.evidence.push_back({start, dur, c.Iteration(start), std::move(what)});
}

std::vector<size_t> Context::WindowCopies() const {
  const auto& mo = t_.memops;
  std::vector<size_t> out;
  for (size_t m = 0; m < mo.size(); ++m) {
    if (GpuIn(mo.start_ns[m], mo.launch[m]) && mo.kind[m] != model::MemopKind::kMemset)
      out.push_back(m);
  }
  return out;
}

}  // namespace gpuscope::analysis::internal
