#include "analysis/timeline/stalls.h"

#include <algorithm>
#include <map>

#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// A stream wait this close before the launch of the op that ended a stall is named as its cause.
constexpr int64_t kWaitLookback = 1'000'000;

struct LaunchedOp {
  int64_t start, end;
  model::RowId launch;
};

// The longest host call / deepest op on `track` covering most of [a, b).
std::string HostDuring(const model::Trace& t, const Attributor& at, model::TrackId track, int64_t a,
                       int64_t b, Where* where) {
  int64_t len = b - a, best = 0;
  size_t call = SIZE_MAX;
  for (size_t i = 0; i < t.api.size() && t.api.start_ns[i] < b; ++i) {
    if (t.api.track[i] != track || t.api.domain[i] == model::ApiDomain::kOs) continue;
    int64_t o = Overlap(t.api.start_ns[i], t.api.end_ns(i), a, b);
    if (o > best) best = o, call = i;
  }
  if (call != SIZE_MAX && 2 * best >= len) {
    *where = at.Api(static_cast<model::RowId>(call));
    return "host blocked in " + std::string(t.str(t.api.name[call])) + " for " +
           base::FormatDuration(best) + " of it";
  }
  // The deepest framework op covering it (annotations such as ProfilerStep#N say nothing).
  size_t op = SIZE_MAX;
  int depth = -1;
  for (size_t i = 0; i < t.cpu.size() && t.cpu.start_ns[i] < b; ++i) {
    if (t.cpu.track[i] != track || t.cpu.kind[i] != model::CpuRangeKind::kOp) continue;
    int64_t o = Overlap(t.cpu.start_ns[i], t.cpu.end_ns(i), a, b);
    if (2 * o >= len && t.cpu.depth[i] > depth) op = i, depth = t.cpu.depth[i];
  }
  if (op != SIZE_MAX) {
    where->op = std::string(t.str(t.cpu.name[op]));
    where->python = at.PythonOf(static_cast<model::RowId>(op));
    return "host in " + where->op;
  }
  // Of the annotations, a data loader's says what the thread waited for: the next batch.
  for (size_t i = 0; i < t.cpu.size() && t.cpu.start_ns[i] < b; ++i) {
    if (t.cpu.track[i] != track || !IsDataLoaderRange(t.str(t.cpu.name[i])) ||
        2 * Overlap(t.cpu.start_ns[i], t.cpu.end_ns(i), a, b) < len)
      continue;
    where->op = std::string(t.str(t.cpu.name[i]));
    return "host waits in the data loader for the next batch";
  }
  size_t frame = SIZE_MAX;
  for (size_t i = 0; i < t.python.size() && t.python.start_ns[i] < b; ++i) {
    if (t.python.track[i] != track) continue;
    if (2 * Overlap(t.python.start_ns[i], t.python.end_ns(i), a, b) >= len &&
        at.UserFrame(static_cast<model::RowId>(i)) == i)
      frame = i;  // the innermost (latest starting) user frame covering it
  }
  if (frame != SIZE_MAX) {
    where->python = std::string(t.str(t.python.name[frame]));
    return "host in Python " + where->python;
  }
  return "no single host event on the launching thread covers it";
}

}  // namespace

std::vector<Stall> FindStalls(const model::Trace& t, const Attributor& at, int64_t w0, int64_t w1,
                              size_t count, int64_t min_ns, const OneTime& one_time) {
  std::map<int, std::vector<LaunchedOp>> per_device;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    per_device[t.kernels.device[i]].push_back(
        {t.kernels.start_ns[i], t.kernels.end_ns(i), t.kernels.launch[i]});
  for (size_t i = 0; i < t.memops.size(); ++i)
    per_device[t.memops.device[i]].push_back(
        {t.memops.start_ns[i], t.memops.end_ns(i), t.memops.launch[i]});
  struct Candidate {
    int device;
    int64_t start, end;
    model::RowId next_launch;
  };
  std::vector<Candidate> gaps;
  for (auto& [dev, ops] : per_device) {
    std::sort(ops.begin(), ops.end(),
              [](const LaunchedOp& a, const LaunchedOp& b) { return a.start < b.start; });
    // Before its first op: idle from the end of that op's launch call.
    if (ops[0].launch != model::kNoRow) {
      int64_t launched = t.api.end_ns(ops[0].launch);
      if (ops[0].start - launched >= min_ns)
        gaps.push_back({dev, launched, ops[0].start, ops[0].launch});
    }
    int64_t busy_end = ops[0].end;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i].start - busy_end >= min_ns)
        gaps.push_back({dev, busy_end, ops[i].start, ops[i].launch});
      busy_end = std::max(busy_end, ops[i].end);
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const Candidate& a, const Candidate& b) {
    return a.end - a.start > b.end - b.start;
  });
  if (gaps.size() > count) gaps.resize(count);
  std::vector<Stall> out;
  for (const auto& g : gaps) {
    Stall s;
    s.device = g.device, s.start_ns = g.start, s.dur_ns = g.end - g.start;
    s.in_window = g.start < w1 && g.end > w0;
    if (2 * one_time.Within(g.start, g.end) >= s.dur_ns) {
      int64_t most = 0;
      for (const auto& p : one_time.parts) {
        const int64_t o = std::min(p.end_ns, g.end) - std::max(p.start_ns, g.start);
        if (o > most) most = o, s.one_time = p.what;
      }
    }
    if (g.next_launch == model::kNoRow) {
      s.host = "the op after it has no launch call in the trace";
      out.push_back(std::move(s));
      continue;
    }
    model::TrackId track = t.api.track[g.next_launch];
    int64_t launched = t.api.start_ns[g.next_launch];
    s.queued_ns = std::max<int64_t>(0, g.end - std::max(t.api.end_ns(g.next_launch), g.start));
    s.host = HostDuring(t, at, track, g.start, g.end, &s.where);
    if (!s.one_time.empty()) {
      s.host =
          "one-time (" + s.one_time + ": the warm-up finding's, not the steady part's): " + s.host;
    } else if (2 * s.queued_ns >= s.dur_ns) {
      // Queued while the GPU was idle, yet started only at the end: something the trace does
      // not show held it (a stream wait on another process's event, a clock offset).
      std::string after;
      // API rows are sorted by start: only the lookback window before the launch is read.
      auto first =
          std::lower_bound(t.api.start_ns.begin(), t.api.start_ns.end(), launched - kWaitLookback);
      for (size_t i = static_cast<size_t>(first - t.api.start_ns.begin());
           i < t.api.size() && t.api.start_ns[i] < launched; ++i) {
        if (t.api.track[i] == track &&
            t.str(t.api.name[i]).find("StreamWaitEvent") != std::string_view::npos)
          after = std::string(t.str(t.api.name[i]));
      }
      s.host += "; the op that ended it (by " + std::string(t.str(t.api.name[g.next_launch])) +
                ") sat queued on the idle GPU for " + base::FormatDuration(s.queued_ns) +
                ": it waited for something the trace does not show" +
                (after.empty() ? std::string(" (another process's work, or a CPU/GPU clock offset)")
                               : " (after " + after + ": an event recorded outside the trace?)");
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuscope::analysis
