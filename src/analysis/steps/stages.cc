// The stages of a window (stages.h): periodic stretches of the kernel sequence, chosen longest
// first, told apart as steps, passes or layers by what separates their blocks.

#include "analysis/steps/stages.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include "analysis/common/call_names.h"
#include "analysis/common/name_memo.h"
#include "analysis/steps/steady_state.h"
#include "analysis/steps/step_sources.h"

namespace gpuscope::analysis {
namespace {

using model::kNoRow;
using model::RowId;

// Candidate periods tried (the most covering distances between a kernel and the next of its name).
constexpr size_t kCandidates = 24;
// A host gap between two launches separates passes when it is this many times the median gap
// between launches, and at least kMinHostGapNs.
constexpr int64_t kHostGapFactor = 20;
constexpr int64_t kMinHostGapNs = 200'000;
// A repeated stage covers at least 1/kMinShare of the window's kernels (fewer: a detail of a
// stage, not one of the run's).
constexpr size_t kMinShare = 20;

// What may separate two kernels of the sequence (bits).
enum Separator : uint8_t {
  kGraphLaunch = 1,
  kSync = 2,
  kLoader = 4,
  kStepMarker = 8,
  kHostGap = 16,
};

const char* SeparatorName(uint8_t bit) {
  switch (bit) {
    case kGraphLaunch:
      return "a graph launch";
    case kSync:
      return "a synchronization";
    case kLoader:
      return "a data-loader call";
    case kStepMarker:
      return "a step marker";
    default:
      return "a host gap";
  }
}

// The window's kernels in launch order (by the launching call's start, then the kernel's).
struct Sequence {
  std::vector<uint32_t> rows;
  std::vector<int64_t> at;            // launch time of each
  std::vector<model::StringId> name;  // name of each
  std::vector<uint8_t> sep;           // separators before each (sep[0] = 0)
};

Sequence Collect(const model::Trace& t, int64_t start, int64_t end) {
  const auto& k = t.kernels;
  std::vector<std::pair<int64_t, uint32_t>> order;
  for (size_t i = 0; i < k.size(); ++i) {
    // Launched in the window, or run in it (a one-step window is the span of GPU work, whose
    // first kernels were launched before it).
    int64_t at = LaunchedAt(t, k.launch[i], k.start_ns[i]);
    if ((at >= start && at < end) || (k.start_ns[i] >= start && k.start_ns[i] < end))
      order.emplace_back(at, static_cast<uint32_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : k.start_ns[a.second] < k.start_ns[b.second];
  });
  Sequence s;
  for (auto [at, row] : order) {
    s.rows.push_back(row);
    s.at.push_back(at);
    s.name.push_back(k.name[row]);
  }
  return s;
}

// The separators between consecutive kernels: a graph launch other than the previous kernel's,
// a blocking call or a data-loader call on the launching thread between the two launches, a
// step's start, a host gap.
void FindSeparators(const model::Trace& t, Sequence& s) {
  const size_t n = s.rows.size();
  s.sep.assign(n, 0);
  if (n < 2) return;
  internal::HostMarks marks(t);
  std::vector<int64_t> steps;
  for (const auto& it : t.iterations) steps.push_back(it.start_ns);
  std::sort(steps.begin(), steps.end());
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < n; ++i)
    if (s.at[i] > s.at[i - 1]) gaps.push_back(s.at[i] - s.at[i - 1]);
  int64_t gap_limit = INT64_MAX;
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
    gap_limit = std::max(kMinHostGapNs, kHostGapFactor * gaps[gaps.size() / 2]);
  }
  const auto& k = t.kernels;
  NameMemo graph_launch(t, IsGraphLaunchApi);
  for (size_t i = 1; i < n; ++i) {
    uint8_t sep = 0;
    const int64_t from = s.at[i - 1] + 1, to = s.at[i];
    auto step = std::lower_bound(steps.begin(), steps.end(), from);
    if (step != steps.end() && *step <= to) sep |= kStepMarker;
    if (to - s.at[i - 1] > gap_limit) sep |= kHostGap;
    const RowId prev = k.launch[s.rows[i - 1]], cur = k.launch[s.rows[i]];
    if (cur != kNoRow) {
      if (cur != prev && graph_launch(t.api.name[cur])) sep |= kGraphLaunch;
      const model::TrackId track = t.api.track[cur];
      if (internal::HostMarks::FirstIn(marks.sync_starts, track, from, to) >= 0) sep |= kSync;
      if (internal::HostMarks::FirstIn(marks.loader_starts, track, from, to) >= 0) sep |= kLoader;
    }
    s.sep[i] = sep;
  }
}

// The periods worth trying: distances from a kernel to the next of its name, the most covering
// first (a distance seen c times covers about c x d kernels).
std::vector<size_t> CandidatePeriods(const std::vector<model::StringId>& name, size_t min_repeats) {
  std::unordered_map<model::StringId, size_t> last;
  std::unordered_map<size_t, size_t> seen;
  for (size_t i = 0; i < name.size(); ++i) {
    auto [it, fresh] = last.try_emplace(name[i], i);
    if (!fresh) ++seen[i - it->second], it->second = i;
  }
  std::vector<std::pair<size_t, size_t>> ranked;  // (coverage, period)
  for (auto [d, c] : seen)
    if (d >= 2 && c + 1 >= min_repeats) ranked.emplace_back(c * d, d);
  std::sort(ranked.rbegin(), ranked.rend());
  std::vector<size_t> out;
  for (size_t i = 0; i < ranked.size() && i < kCandidates; ++i) out.push_back(ranked[i].second);
  return out;
}

// A periodic stretch: kernels [first, first + period x repeats), in a periodic region that
// runs to `limit` (a last block cut short).
struct Stretch {
  size_t period = 0, first = 0, repeats = 0, limit = 0;
  size_t end() const { return first + period * repeats; }
};

// The stretches of period p: runs where each name equals the one p before it, a mismatch
// tolerated every tenth of a block (one kernel more or less in a block).
void StretchesOf(const std::vector<model::StringId>& name, size_t p, size_t min_repeats,
                 std::vector<Stretch>& out) {
  const size_t n = name.size(), tolerance = p / 10;
  size_t i = 0;
  while (i + p < n) {
    if (name[i] != name[i + p]) {
      ++i;
      continue;
    }
    size_t a = i, last = i, miss = 0;
    for (++i; i + p < n; ++i) {
      if (name[i] == name[i + p]) {
        last = i, miss = 0;
      } else if (++miss > tolerance) {
        break;
      }
    }
    const size_t repeats = (last + 1 - a + p) / p;
    if (repeats >= min_repeats) out.push_back({p, a, repeats, std::min(n, last + 1 + p)});
    i = last + 1;
  }
}

// Whether the block of kernels [first, first + period) holds a repeating block of its own.
bool HoldsLayers(const std::vector<model::StringId>& name, const Stretch& s, size_t min_repeats) {
  std::vector<model::StringId> block(name.begin() + static_cast<long>(s.first),
                                     name.begin() + static_cast<long>(s.first + s.period));
  return internal::KernelPeriod(block, min_repeats) != 0;
}

// Aligns a stretch on the separators between its blocks and says what separates them: of the
// separators each at one phase of at least half its boundaries, step markers first (the
// program's own), then the others by how many boundaries they hold; the first whose alignment
// keeps min_repeats whole blocks. None: 0 (an .item() once per step beats the step marker on
// count when the first step has kernels of its own, and aligning on it can lose a block).
uint8_t AlignOnSeparators(const Sequence& q, Stretch& s, size_t min_repeats) {
  struct Candidate {
    uint8_t bit = 0;
    size_t count = 0, phase = 0;
  };
  std::vector<Candidate> candidates;
  for (uint8_t b = 1; b <= kHostGap; b <<= 1) {
    std::vector<size_t> count(s.period, 0);
    for (size_t i = std::max<size_t>(s.first, 1); i < s.limit; ++i)
      if (q.sep[i] & b) ++count[(i - s.first) % s.period];
    Candidate c{b, 0, 0};
    for (size_t p = 0; p < s.period; ++p)
      if (count[p] > c.count) c.count = count[p], c.phase = p;
    // Boundaries between blocks: repeats - 1 inside the stretch, one more at its start.
    if (2 * c.count >= s.repeats) candidates.push_back(c);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     const bool ma = a.bit == kStepMarker, mb = b.bit == kStepMarker;
                     return ma != mb ? ma : a.count > b.count;
                   });
  for (const Candidate& c : candidates) {
    // The blocks start after the separator: what the stretch held before it goes to the stage
    // before, a last partial block to the stage after.
    Stretch moved{s.period, s.first + c.phase, (s.limit - s.first - c.phase) / s.period, s.limit};
    if (moved.repeats < min_repeats) continue;
    s = moved;
    return c.bit;
  }
  return 0;
}

// Whether the stretch's first kernel was launched inside an optimizer's step (PyTorch's
// "Optimizer.step#Adagrad.step" range around the update ops).
bool InOptimizerStep(const model::Trace& t, const Sequence& q, const Stretch& s) {
  const RowId call = t.kernels.launch[q.rows[s.first]];
  if (call == kNoRow) return false;
  for (RowId r = t.api.enclosing_op[call]; r != kNoRow; r = t.cpu.parent[r])
    if (t.str(t.cpu.name[r]).starts_with("Optimizer.step#")) return true;
  return false;
}

// Whether the stretch's blocks all run inside one call of a module: a Python frame
// "file.py(N): forward" or an "nn.Module: X" frame on the launching thread that holds the launches
// of its first and last kernels. Blocks separated by a per-layer synchronization or host gap
// inside one forward pass are its layers, not steps (a Switch Transformer's layers, each ending in
// an .item()).
bool InOneModuleCall(const model::Trace& t, const Sequence& q, const Stretch& s) {
  if (s.repeats == 0) return false;
  const RowId first = t.kernels.launch[q.rows[s.first]];
  const RowId last = t.kernels.launch[q.rows[s.end() - 1]];
  if (first == kNoRow || last == kNoRow || t.api.track[first] != t.api.track[last]) return false;
  const int64_t from = t.api.start_ns[first], to = t.api.end_ns(last);
  const auto& py = t.python;
  for (size_t f = 0; f < py.size() && py.start_ns[f] <= from; ++f) {
    if (py.track[f] != t.api.track[first] || py.end_ns(f) < to) continue;
    std::string_view name = t.str(py.name[f]);
    if (name.ends_with(": forward") || name.starts_with("nn.Module: ")) return true;
  }
  return false;
}

// The start of the last marked step that began at or before `at` (INT64_MIN: none). Steps marked
// by the program start at their marker: a step's data-loader wait before its first kernel is the
// step's, not a stage that runs once.
int64_t StepStartBefore(const model::Trace& t, int64_t at) {
  int64_t out = INT64_MIN;
  for (const auto& it : t.iterations)
    if (it.start_ns <= at) out = std::max(out, it.start_ns);
  return out;
}

}  // namespace

std::vector<Stage> FindStages(const model::Trace& t, int64_t start, int64_t end,
                              size_t min_repeats) {
  Sequence q = Collect(t, start, end);
  const size_t n = q.rows.size();
  if (n == 0) return {};
  FindSeparators(t, q);
  std::vector<Stretch> all;
  for (size_t p : CandidatePeriods(q.name, min_repeats)) StretchesOf(q.name, p, min_repeats, all);
  // The most covering first (of equal cover, the shortest period); each kept where it overlaps
  // none kept before.
  std::sort(all.begin(), all.end(), [](const Stretch& a, const Stretch& b) {
    const size_t ca = a.period * a.repeats, cb = b.period * b.repeats;
    return ca != cb ? ca > cb : a.period != b.period ? a.period < b.period : a.first < b.first;
  });
  std::map<size_t, Stretch> by_first;  // kept, by first kernel
  for (const Stretch& s : all) {
    if (s.period * s.repeats < n / kMinShare) break;  // the rest cover less
    auto next = by_first.lower_bound(s.first);
    if (next != by_first.end() && next->first < s.end()) continue;
    if (next != by_first.begin() && std::prev(next)->second.end() > s.first) continue;
    by_first.emplace(s.first, s);
  }
  std::vector<Stretch> kept;
  for (const auto& [first, s] : by_first) kept.push_back(s);
  // The stages in kernel order: repeated ones and what runs once between them.
  std::vector<Stage> stages;
  std::vector<size_t> first_kernel;
  std::vector<int64_t> begin;  // a stage's start when known from the host (its first step's
                               // marker), else INT64_MIN: its first kernel's start on the GPU
  auto once = [&](size_t a, size_t b) {
    if (b <= a) return;
    stages.push_back({StageKind::kOnce, "", "", b - a, 1, 0, 0});
    first_kernel.push_back(a);
    begin.push_back(INT64_MIN);
  };
  size_t at = 0;
  for (size_t k = 0; k < kept.size(); ++k) {
    Stretch s = kept[k];
    // Its region ends where the next stretch begins.
    s.limit = std::min(s.limit, k + 1 < kept.size() ? kept[k + 1].first : n);
    Stretch aligned = s;
    const uint8_t sep = AlignOnSeparators(q, aligned, min_repeats);
    // Steps start after what separates them; layers of one forward keep the blocks the names
    // repeat with (a sync at each layer's end cuts none of them off).
    const bool steps = sep && (sep == kStepMarker || !InOneModuleCall(t, q, aligned));
    if (steps) s = aligned;
    once(at, s.first);
    Stage st;
    st.kernels = s.period, st.repeats = s.repeats;
    if (sep) st.separator = SeparatorName(sep);
    if (steps) {
      st.kind = StageKind::kSteps;
    } else {
      st.kind = HoldsLayers(q.name, s, min_repeats) ? StageKind::kPasses
                : InOptimizerStep(t, q, s)          ? StageKind::kUpdates
                                                    : StageKind::kLayers;
    }
    stages.push_back(st);
    first_kernel.push_back(s.first);
    begin.push_back(steps && sep == kStepMarker ? StepStartBefore(t, q.at[s.first]) : INT64_MIN);
    at = s.end();
  }
  once(at, n);
  // Times: from the first kernel's start on the GPU to the next stage's, the first from the
  // window's start, the last to its end. An unbounded side (INT64_MIN / INT64_MAX: "the whole
  // trace") is the kernels' own span, so that no duration overflows.
  const auto& k = t.kernels;
  if (start == INT64_MIN || end == INT64_MAX) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t row : q.rows) {
      lo = std::min(lo, k.start_ns[row]);
      hi = std::max(hi, k.start_ns[row] + std::max<int64_t>(k.dur_ns[row], 0));
    }
    if (start == INT64_MIN) start = lo;
    if (end == INT64_MAX) end = std::max(hi, start);
  }
  int64_t from = start;
  for (size_t i = 0; i < stages.size(); ++i) {
    int64_t to = end;
    if (i + 1 < stages.size()) {
      const int64_t next =
          begin[i + 1] != INT64_MIN ? begin[i + 1] : k.start_ns[q.rows[first_kernel[i + 1]]];
      to = std::clamp(next, from, end);
    }
    stages[i].start_ns = from, stages[i].dur_ns = to - from;
    from = to;
  }
  // Kernels that ran once but take none of the window's time (launched before the first marked
  // step, run as it began) make no stage.
  if (stages.size() > 1)
    std::erase_if(stages,
                  [](const Stage& s) { return s.kind == StageKind::kOnce && s.dur_ns == 0; });
  for (size_t i = 0; i < stages.size(); ++i) {
    Stage& st = stages[i];
    if (st.kind == StageKind::kOnce) {
      st.label = i == 0 ? "prefix" : i + 1 == stages.size() ? "suffix" : "between";
    } else {
      const char* what = st.kind == StageKind::kSteps     ? "step"
                         : st.kind == StageKind::kPasses  ? "pass"
                         : st.kind == StageKind::kUpdates ? "update"
                                                          : "layer";
      st.label = std::to_string(st.repeats) + " x " + what;
    }
  }
  // Marked steps are steps even when their kernels repeat no block at one period.
  if (std::none_of(stages.begin(), stages.end(),
                   [](const Stage& s) { return s.kind == StageKind::kSteps; })) {
    std::vector<Stage> marked = MarkedStepStages(t, start, end, min_repeats);
    if (!marked.empty()) return marked;
  }
  return stages;
}

}  // namespace gpuscope::analysis
