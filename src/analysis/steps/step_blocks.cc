// Steps from the kernel sequence itself when nothing marks them: the host splits the sequence
// (a data-loader call, a synchronization, a graph launch between two kernels), and the pieces it
// splits into are alike. See BlockSteps in step_sources.h for what counts as evidence.

#include <algorithm>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/common/name_memo.h"
#include "analysis/steps/step_sources.h"

namespace gpuscope::analysis::internal {
namespace {

struct Launched {
  int64_t at;     // start of the launching call
  size_t kernel;  // row in the kernel table
};

}  // namespace

HostMarks::HostMarks(const model::Trace& t) {
  NameMemo loader(t, IsDataLoaderRange);
  for (size_t i = 0; i < t.cpu.size(); ++i)
    if (loader(t.cpu.name[i])) loader_starts[t.cpu.track[i]].push_back(t.cpu.start_ns[i]);
  // A blocking call: an explicit synchronize or a copy that is not asynchronous.
  NameMemo blocking(t, [](std::string_view n) { return IsSyncApi(n) || IsBlockingCopyApi(n); });
  for (size_t i = 0; i < t.api.size(); ++i)
    if (blocking(t.api.name[i])) sync_starts[t.api.track[i]].push_back(t.api.start_ns[i]);
  for (auto* m : {&loader_starts, &sync_starts})
    for (auto& [track, v] : *m) std::sort(v.begin(), v.end());
}

int64_t HostMarks::FirstIn(const std::unordered_map<model::TrackId, std::vector<int64_t>>& m,
                           model::TrackId track, int64_t from, int64_t to) {
  auto it = m.find(track);
  if (it == m.end()) return -1;
  auto p = std::lower_bound(it->second.begin(), it->second.end(), from);
  return p != it->second.end() && *p < to ? *p : -1;
}

StepSource BlockSteps(const model::Trace& t, int64_t start, int64_t end, size_t min_repeats) {
  const auto& k = t.kernels;
  std::vector<Launched> seq;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.launch[i] == model::kNoRow) continue;
    int64_t at = t.api.start_ns[k.launch[i]];
    if (at >= start && at < end) seq.push_back({at, i});
  }
  if (seq.size() < 2 * min_repeats) return {};
  std::stable_sort(seq.begin(), seq.end(), [&](const Launched& a, const Launched& b) {
    return a.at != b.at ? a.at < b.at : k.start_ns[a.kernel] < k.start_ns[b.kernel];
  });
  HostMarks marks(t);
  auto is_graph = [&](model::RowId call) { return IsGraphLaunchApi(t.str(t.api.name[call])); };

  // Split before a kernel whose launch follows a data-loader call or a blocking call on the
  // launching thread, or that a graph launch other than the previous kernel's replays.
  struct Piece {
    size_t first = 0, last = 0;  // indices into seq, inclusive
    int64_t start_ns = 0;        // the loader call's start when one opens it, else the launch's
    bool after_loader = false;
  };
  std::vector<Piece> pieces{{0, 0, seq[0].at, false}};
  size_t loader_splits = 0;
  for (size_t i = 1; i < seq.size(); ++i) {
    model::RowId prev = k.launch[seq[i - 1].kernel], cur = k.launch[seq[i].kernel];
    model::TrackId track = t.api.track[cur];
    int64_t from = t.api.start_ns[prev] + 1, to = seq[i].at;
    int64_t loader = HostMarks::FirstIn(marks.loader_starts, track, from, to);
    bool split = loader >= 0 || HostMarks::FirstIn(marks.sync_starts, track, from, to) >= 0 ||
                 (cur != prev && is_graph(cur));
    if (!split) {
      pieces.back().last = i;
      continue;
    }
    loader_splits += loader >= 0;
    pieces.push_back({i, i, loader >= 0 ? loader : seq[i].at, loader >= 0});
  }
  if (pieces.size() < min_repeats) return {};

  // The pieces must be alike: most within 2x of the median kernel count.
  std::vector<size_t> sizes;
  for (const auto& p : pieces) sizes.push_back(p.last - p.first + 1);
  std::vector<size_t> sorted = sizes;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2),
                   sorted.end());
  size_t median = sorted[sorted.size() / 2];
  if (median < 2) return {};
  size_t alike = 0;
  for (size_t s : sizes) alike += 2 * s >= median && s <= 2 * median;
  if (alike < min_repeats || 5 * alike < 4 * pieces.size()) return {};

  // Evidence that a piece is a pass over the model and not a layer: the data loader opens most
  // pieces, or most pieces are one whole graph replay, or a typical piece holds repeating layers.
  std::string why;
  if (2 * loader_splits >= pieces.size() - 1) why = "a data-loader call";
  if (why.empty()) {
    size_t whole_graphs = 0;
    for (const auto& p : pieces) {
      model::RowId call = k.launch[seq[p.first].kernel];
      bool whole = is_graph(call);
      for (size_t i = p.first; i <= p.last && whole; ++i) whole = k.launch[seq[i].kernel] == call;
      whole_graphs += whole;
    }
    if (2 * whole_graphs > pieces.size()) why = "a graph launch";
  }
  if (why.empty()) {
    const Piece* typical = &pieces[0];
    for (const auto& p : pieces)
      if (p.last - p.first + 1 == median) typical = &p;
    std::vector<model::StringId> names;
    for (size_t i = typical->first; i <= typical->last; ++i) names.push_back(k.name[seq[i].kernel]);
    if (KernelPeriod(names, min_repeats)) why = "a synchronization";
  }
  if (why.empty()) return {};

  StepSource s;
  s.source = "repeated kernel blocks, each after " + why + " (no steps marked)";
  for (size_t p = 0; p < pieces.size(); ++p) {
    int64_t b = pieces[p].start_ns, e = 0;
    if (p + 1 < pieces.size()) {
      e = pieces[p + 1].start_ns;  // a step runs to the next one's start
    } else {
      for (size_t i = pieces[p].first; i <= pieces[p].last; ++i) {
        model::RowId call = k.launch[seq[i].kernel];
        e = std::max({e, t.api.end_ns(call), k.end_ns(seq[i].kernel)});
      }
    }
    s.spans.push_back(
        {b, std::max<int64_t>(e - b, 0), "", t.api.track[k.launch[seq[pieces[p].first].kernel]]});
  }
  return s;
}

}  // namespace gpuscope::analysis::internal
