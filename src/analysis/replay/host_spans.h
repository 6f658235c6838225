#pragma once
// A what-if's host spans on one thread made disjoint before they are applied: the replay cuts
// each gap by its overlap with each span, which counts time under two spans twice.

#include <vector>

#include "analysis/replay/what_if.h"

namespace gpuscope::analysis {

// Whether `spans` (of one thread) are in time order and apart: each begins at or after the end
// of the one before. Empty spans (end <= start) cut nothing and are passed over.
bool HostSpansApart(const std::vector<WhatIf::HostScale>& spans);

// The spans of one thread as disjoint pieces in time order: each instant under one or more
// spans is scaled once, by the smallest factor of those over it (the largest cut), and the
// runtime calls in it scale where any of them scales calls. So a fix that lists a span twice,
// or spans inside spans (a frame inside a frame, a pause inside a one-time cost), or two fixes
// combined over the same host time, remove that time once. Neighbouring pieces of one factor
// and calls are joined; empty spans are dropped. Spans already apart come back as they are.
std::vector<WhatIf::HostScale> DisjointHostSpans(std::vector<WhatIf::HostScale> spans);

}  // namespace gpuscope::analysis
