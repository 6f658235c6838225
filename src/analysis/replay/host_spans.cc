#include "analysis/replay/host_spans.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace gpuscope::analysis {

bool HostSpansApart(const std::vector<WhatIf::HostScale>& spans) {
  int64_t end = INT64_MIN;
  for (const WhatIf::HostScale& h : spans) {
    if (h.end_ns <= h.start_ns) continue;
    if (h.start_ns < end) return false;
    end = h.end_ns;
  }
  return true;
}

namespace {

using Span = WhatIf::HostScale;

// The spans sorted by start: a combination of fixes is a few runs each in order (one fix's
// spans), merged run by run (n log runs, not n log n).
void SortByStart(std::vector<Span>& spans) {
  auto before = [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; };
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < spans.size(); ++i)
    if (before(spans[i], spans[i - 1])) bounds.push_back(i);
  bounds.push_back(spans.size());
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 1 < bounds.size(); k += 2) {
      const size_t end = k + 2 < bounds.size() ? bounds[k + 2] : bounds[k + 1];
      if (k + 2 < bounds.size())
        std::inplace_merge(spans.begin() + static_cast<long>(bounds[k]),
                           spans.begin() + static_cast<long>(bounds[k + 1]),
                           spans.begin() + static_cast<long>(end), before);
      merged.push_back(end);
    }
    bounds = std::move(merged);
  }
}

// A sweep from instant to instant (a span's start or end) over spans[i, end), sorted by start,
// that overlap one another in a chain (a cluster): the spans open over each stretch give its
// factor (their smallest) and whether its calls scale (any). An open span that another open one
// outlasts with no larger factor and calls where it has them changes no stretch: it is dropped,
// so nested spans keep the open list short. A piece that touches the one before with the same
// factor and calls extends it.
void SweepCluster(const std::vector<Span>& spans, size_t i, size_t end, std::vector<Span>& out,
                  std::vector<Span>& open) {
  auto emit = [&](int64_t from, int64_t to) {
    if (open.empty() || to <= from) return;
    Span piece{open.front().track, from, to, open.front().factor, false};
    for (const Span& o : open)
      piece.factor = std::min(piece.factor, o.factor), piece.calls |= o.calls;
    Span* last = out.empty() ? nullptr : &out.back();
    if (last && last->end_ns == from && last->factor == piece.factor && last->calls == piece.calls)
      last->end_ns = to;
    else
      out.push_back(piece);
  };
  auto covers = [](const Span& a, const Span& b) {  // a makes b change nothing while both open
    return a.end_ns >= b.end_ns && a.factor <= b.factor && (a.calls || !b.calls);
  };
  open.clear();
  int64_t at = spans[i].start_ns;
  while (i < end || !open.empty()) {
    if (open.empty()) at = std::max(at, spans[i].start_ns);
    for (; i < end && spans[i].start_ns <= at; ++i) {
      const Span& s = spans[i];
      if (std::any_of(open.begin(), open.end(), [&](const Span& o) { return covers(o, s); }))
        continue;
      std::erase_if(open, [&](const Span& o) { return covers(s, o); });
      open.push_back(s);
    }
    int64_t next = i < end ? spans[i].start_ns : INT64_MAX;
    for (const Span& o : open) next = std::min(next, o.end_ns);
    emit(at, next);
    at = next;
    std::erase_if(open, [&](const Span& o) { return o.end_ns <= at; });
  }
}

}  // namespace

std::vector<WhatIf::HostScale> DisjointHostSpans(std::vector<WhatIf::HostScale> spans) {
  std::erase_if(spans, [](const Span& h) { return h.end_ns <= h.start_ns; });
  if (HostSpansApart(spans)) return spans;
  SortByStart(spans);
  // Cluster by cluster (spans that overlap in a chain): a span that overlaps none is its own
  // piece, with no sweep (a combination of fixes is mostly such spans: 122 k on the 1 GB trace).
  std::vector<Span> out, open;
  for (size_t i = 0; i < spans.size();) {
    size_t end = i + 1;
    for (int64_t reach = spans[i].end_ns; end < spans.size() && spans[end].start_ns < reach; ++end)
      reach = std::max(reach, spans[end].end_ns);
    SweepCluster(spans, i, end, out, open);
    i = end;
  }
  return out;
}

}  // namespace gpuscope::analysis
