#include "analysis/timeline/recording_notes.h"

#include <algorithm>
#include <map>
#include <string>

#include "analysis/attribution/graph_attribution.h"
#include "analysis/common/call_names.h"
#include "analysis/common/intervals.h"
#include "analysis/common/name_memo.h"
#include "analysis/common/tracer_spacing.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// A synchronizing call returns a few us after the work it waited for, and tracers round: idle
// GPU time inside one call up to this much is its own.
constexpr int64_t kWaitSlackNs = 50'000;
// Unexplained waits below this are noise (a few calls' latency), not missing work.
constexpr int64_t kMinUnexplainedNs = 1'000'000;
// Gaps between kernels of one stream, after which the kernel cannot have been queued, needed to
// call them re-timed, and the share of them that must be 0-1 ns: a GPU starts no kernel it was
// not yet given within a nanosecond of the last one's end (the fastest launch we have traces of
// takes a few us), so such gaps were written, not measured.
constexpr uint64_t kMinGaps = 20;
constexpr double kZeroGapShare = 0.9;
// A launch call that began this long after the stream's last kernel ended had not queued its
// kernel behind it (the host's and GPU's clocks agree to about this).
constexpr int64_t kLaunchSlackNs = 1'000;

std::string Ms(int64_t ns) { return base::FormatDuration(ns); }

std::vector<Interval> GpuBusy(const model::Trace& t) {
  std::vector<Interval> busy;
  busy.reserve(t.kernels.size() + t.memops.size());
  for (size_t i = 0; i < t.kernels.size(); ++i)
    busy.emplace_back(t.kernels.start_ns[i], t.kernels.end_ns(i));
  for (size_t i = 0; i < t.memops.size(); ++i)
    busy.emplace_back(t.memops.start_ns[i], t.memops.end_ns(i));
  MergeIntervals(busy);
  return busy;
}

// Kernels of one stream written back to back: per stream the gaps after which the kernel cannot
// have been queued (its launch call began after the kernel before it ended), those of 0-1 ns (a
// GPU cannot start a kernel it was not yet given the instant the last one ends; a queued one it
// can, and ROCm's tracers write queued kernels so), its span.
struct StreamGaps {
  uint64_t gaps = 0, zero = 0;
  int64_t first = 0, last_end = 0;
};

std::map<model::TrackId, StreamGaps> GapsByStream(const model::Trace& t) {
  std::map<model::TrackId, StreamGaps> by;
  const auto& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    auto [it, added] = by.try_emplace(k.track[i]);
    StreamGaps& s = it->second;
    if (added) {
      s.first = k.start_ns[i], s.last_end = k.end_ns(i);
      continue;
    }
    const int64_t gap = k.start_ns[i] - s.last_end;
    const model::RowId l = k.launch[i];
    if (l != model::kNoRow && t.api.start_ns[l] > s.last_end + kLaunchSlackNs) {
      ++s.gaps;
      s.zero += gap >= -1 && gap <= 1;  // a tracer's rounding either way
    }
    s.last_end = std::max(s.last_end, k.end_ns(i));
  }
  return by;
}

void TimesNotes(const model::Trace& t, const HostWaits& w, std::vector<HealthNote>& out) {
  uint64_t gaps = 0, zero = 0;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const auto& [track, s] : GapsByStream(t)) {
    gaps += s.gaps, zero += s.zero;
    if (s.gaps >= kMinGaps &&
        static_cast<double>(s.zero) >= kZeroGapShare * static_cast<double>(s.gaps))
      spans.emplace_back(s.first, s.last_end);
  }
  if (gaps < kMinGaps || static_cast<double>(zero) < kZeroGapShare * static_cast<double>(gaps))
    return;
  HealthNote n;
  n.id = "times-inconsistent";
  n.seen = base::FormatCount(zero) + " of " + base::FormatCount(gaps) +
           " kernels launched after the one before them on their stream ended start 0-1 ns after "
           "it ended";
  if (w.late_tail > kMinUnexplainedNs) {
    n.seen += "; a synchronizing call ends " + Ms(w.late_tail) + " after the last GPU op";
    for (const auto& [a, b] : w.idle_waits)
      if (b > w.last_gpu_end) spans.emplace_back(std::max(a, w.last_gpu_end), b);
  }
  n.effect =
      "the kernels were re-timed back to back (by the tracer or a converter): GPU busy, idle "
      "gaps, the host's waits and the replay rest on invented times; findings on them are not "
      "priced";
  n.record =
      "record again with the tracer's device timestamps (rocprofv3 --kernel-trace, or a "
      "PyTorch/Kineto build whose GPU activity keeps them); do not convert through a tool that "
      "re-times kernels";
  n.trusted = "kernel names, counts and durations, and the host's calls and ops";
  n.impossible = std::move(spans);
  out.push_back(std::move(n));
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Whether a message of the tracer says it did not record events it saw: dropped or lost
// records, a full buffer, events not all collected.
bool SaysLost(std::string_view m) {
  const std::string lower = base::AsciiLower(m);
  for (std::string_view s : {"dropped", "lost", "overflow", "not all", "might have been collected"})
    if (lower.find(s) != std::string::npos) return true;
  return false;
}

// Whether the host's waits no recorded GPU work explains leave the timeline incomplete: two or
// more long ones (one alone may be a module load or a trace cut mid-wait), not explained by
// re-timed kernels (times-inconsistent) alone, and - without graph launches to explain them -
// holding a tenth of the trace or more than all the recorded GPU work (two event waits holding
// 11 ms of a 5.9 s resnet50 run with 10,000 GPU ops recorded leave its timeline trustworthy).
bool WaitsMissWork(const model::Trace& t, const HostWaits& w, bool times_noted, uint64_t graphs) {
  if (w.idle_waits.size() < 2) return false;
  if (times_noted && w.unexplained <= w.late_tail + kWaitSlackNs) return false;
  auto [first, last] = t.TimeSpan();
  return graphs > 0 || 10 * w.unexplained >= last - first || w.unexplained >= w.gpu_busy_ns;
}

void MissingWorkNotes(const model::Trace& t, const HostWaits& w, bool times_noted,
                      std::vector<HealthNote>& out) {
  const uint64_t graphs = CountGraphLaunches(t);
  const bool waits = WaitsMissWork(t, w, times_noted, graphs);
  std::vector<std::string> lost;  // the tracer's own word that it lost events
  for (const std::string& m : t.meta.tracer_messages)
    if (SaysLost(m)) lost.push_back("'" + m + "'");
  if (!waits && lost.empty()) return;
  HealthNote n;
  n.id = "gpu-work-missing";
  if (waits) {
    n.seen = base::FormatCount(w.idle_waits.size()) + " host waits (syncs, device-to-host " +
             "copies) of " + Ms(w.wait_ns) + " hold " + Ms(w.unexplained) +
             " while no recorded GPU op runs (" + Ms(w.gpu_busy_ns) + " of GPU work in all)";
    // The waits no recorded work explains: the GPU ran what the trace lacks there, so no finding
    // is priced on them (an idle GPU there is not idle).
    n.impossible = w.idle_waits;
    n.unpriced_why = "the GPU ran work the trace lacks at its times (gpu-work-missing)";
  }
  if (!lost.empty())
    n.seen += (n.seen.empty() ? "the tracer says it did not record all events: "
                              : "; the tracer says: ") +
              Joined(lost);
  if (graphs > 0 && waits) {
    uint64_t graph_kernels = 0;
    for (model::RowId l : t.kernels.launch)
      graph_kernels += l != model::kNoRow && IsGraphLaunchApi(t.str(t.api.name[l]));
    n.seen += "; " + base::FormatCount(graphs) + " graph launches replay " +
              base::FormatCount(graph_kernels) + " kernels in the trace";
    n.effect =
        "the tracer did not record the kernels the graph launches replayed (a known limit of "
        "some tracers: ROCm 7.0 traces a few of a hipGraphLaunch's kernels): GPU busy, the "
        "verdict and every GPU finding see only the recorded part";
    n.record =
        "rocprofv3 --kernel-trace of a ROCm version that traces graph kernels; nsys: "
        "--cuda-graph-trace=node; or trace the run with graphs off (torch.compile "
        "mode=\"default\", vLLM --enforce-eager) to see the kernels";
  } else {
    n.effect =
        "GPU work the host waited for is not in the trace (dropped by a full tracer buffer, "
        "another process, or a device not traced): GPU busy, the verdict and every GPU finding "
        "see only the recorded part";
    n.record =
        "a larger tracer buffer or a shorter window (PyTorch: schedule(active=...) of fewer "
        "steps; rocprofv3: a --collection-period; nsys: a shorter --duration, and the report's "
        "diagnostics)";
  }
  n.trusted = "the recorded kernels' names and durations, and the host's calls and ops";
  out.push_back(std::move(n));
}

// The tracer's other warnings and errors about the traced processes (nsys: "Unified Memory
// cannot be traced on devices that don't support peer-to-peer transfers"): what it says it did
// not record, which the analysis then does not see; the verdict stands.
void TracerMessageNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  std::vector<std::string> other;
  for (const std::string& m : t.meta.tracer_messages)
    if (!SaysLost(m)) other.push_back("'" + m + "'");
  if (other.empty()) return;
  HealthNote n;
  n.id = "tracer-warnings";
  n.seen = "the tracer wrote " + base::Counted(other.size(), "warning", "warnings") +
           " about the traced process: " + Joined(other);
  n.effect = "what they name was not recorded: the analysis does not see it";
  n.record =
      "the tracer's own diagnostics say how to record it (nsys: the report's Diagnostics "
      "Summary)";
  out.push_back(std::move(n));
}

void OverheadNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  uint64_t overhead_records = 0;
  for (const auto& [kind, n] : t.record_counts) {
    if (kind.find("overhead") != std::string::npos) overhead_records += n;
  }
  const TracerSpacing sp = FindTracerSpacing(t);
  if (overhead_records == 0 && sp.gaps == 0) return;
  auto [first, last] = t.TimeSpan();
  const int64_t span = std::max<int64_t>(1, last - first);
  auto share = [&](int64_t ns) {
    return Ms(ns) + " (" +
           base::FormatFixed(100.0 * static_cast<double>(ns) / static_cast<double>(span), 1) +
           "% of the span)";
  };
  HealthNote n;
  n.id = "tracer-overhead";
  std::vector<std::string> seen;
  int64_t without = 0;  // the tracer's time that can be estimated
  if (overhead_records > 0) {
    seen.push_back(base::FormatCount(overhead_records) + " profiler overhead records: " +
                   (t.meta.profiler_overhead_ns > 0 ? share(t.meta.profiler_overhead_ns)
                                                    : std::string("no durations given")));
    without += t.meta.profiler_overhead_ns;
  }
  if (sp.gaps > 0) {
    seen.push_back(base::FormatCount(sp.gaps) + " graph-replayed kernels spaced " + Ms(sp.median) +
                   " apart by the tracer: " + share(sp.extra_ns) + " beyond a graph's " +
                   Ms(kGraphDispatchNs) + " dispatch gap");
    without += sp.extra_ns;
  }
  for (const std::string& s : seen) n.seen += (n.seen.empty() ? "" : "; ") + s;
  // Overhead records of several threads may overlap: past the span, no estimate is given.
  if (without > 0 && without < span)
    n.seen += "; without the tracer the run takes about " + Ms(span - without);
  n.effect =
      "time the tracer spent (buffer flushes, callbacks, kernels serialised to time them) shows "
      "as the program's host time or GPU idle time; a gap the tracer explains is not the "
      "program's";
  n.record =
      "profile a shorter window with fewer options (PyTorch: with_stack and profile_memory cost "
      "the most); time the run without the tracer to compare";
  if (sp.found())
    n.record += "; gpuscope whatif --without-tracer replays the run with the graph's own gaps";
  out.push_back(std::move(n));
}

}  // namespace

HostWaits MeasureHostWaits(const model::Trace& t, int64_t w0, int64_t w1) {
  HostWaits w;
  const std::vector<Interval> busy = GpuBusy(t);
  for (const auto& [a, b] : busy) {
    w.gpu_busy_ns += b - a;
    w.last_gpu_end = std::max(w.last_gpu_end, b);
  }
  // A blocking copy waits for the GPU only until its own copy starts, and only device to host
  // (a pageable host-to-device copy stages the data on the CPU first: host work, not a wait).
  std::vector<int64_t> copy_start(t.api.size(), -1);
  for (size_t m = 0; m < t.memops.size(); ++m) {
    const model::RowId l = t.memops.launch[m];
    if (l == model::kNoRow || t.memops.kind[m] != model::MemopKind::kDtoH) continue;
    if (copy_start[l] < 0 || t.memops.start_ns[m] < copy_start[l])
      copy_start[l] = t.memops.start_ns[m];
  }
  std::vector<Interval> syncs;
  const auto& api = t.api;
  NameMemo sync(t, IsSyncApi), blocking_copy(t, IsBlockingCopyApi);
  for (size_t i = 0; i < api.size(); ++i) {
    if (api.domain[i] == model::ApiDomain::kOs || api.end_ns(i) <= w0 || api.start_ns[i] >= w1)
      continue;
    if (sync(api.name[i]))
      syncs.emplace_back(api.start_ns[i], api.end_ns(i));
    else if (copy_start[i] > api.start_ns[i] && blocking_copy(api.name[i]))
      syncs.emplace_back(api.start_ns[i], std::min(copy_start[i], api.end_ns(i)));
  }
  MergeIntervals(syncs);
  w.waits = syncs;
  for (const auto& [a, b] : syncs) {
    w.wait_ns += b - a;
    const int64_t idle = (b - a) - CoveredWithin(busy, a, b);
    // A wait mostly without GPU work, and long: not the program's (it waits for work).
    if (idle > kMinUnexplainedNs && 2 * idle > b - a) {
      w.unexplained += idle;
      w.idle_waits.emplace_back(a, b);
    }
    if (!busy.empty()) w.late_tail = std::max(w.late_tail, b - std::max(a, w.last_gpu_end));
  }
  return w;
}

void RecordingIntegrityNotes(const model::Trace& t, std::vector<HealthNote>& out) {
  if (t.kernels.size() + t.memops.size() > 0) {
    auto [first, last] = t.TimeSpan();
    const HostWaits w = MeasureHostWaits(t, first, last + 1);
    const size_t before = out.size();
    TimesNotes(t, w, out);
    MissingWorkNotes(t, w, out.size() > before, out);
  }
  OverheadNotes(t, out);
  TracerMessageNotes(t, out);
}

}  // namespace gpuscope::analysis
