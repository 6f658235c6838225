#pragma once
// What the four copy rules share (memcpy-sync, memcpy-pageable, small-memcpy, memcpy-in-loop):
// which copies are in the window and touch the host, the pinned bandwidth measured in the
// trace, and a group of copies charged to one finding.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/common/copies.h"
#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// Copy durations at pinned speed: bytes at the bandwidth this trace's pinned copies reach in the
// same direction, else half the observed time (pageable copies are staged through a pinned
// buffer and run at about half the speed).
class PinnedSpeed {
 public:
  explicit PinnedSpeed(const Trace& t);
  int64_t Duration(size_t memop) const;
  // How the duration is found, for the finding's text.
  std::string Basis() const;

 private:
  const Trace& t_;
  std::map<model::MemopKind, double> bytes_per_ns_;
};

// Copies charged to one finding, and the fix that prices them.
struct CopyGroup {
  size_t n = 0;
  int64_t ns = 0, bytes = 0, api_ns = 0;
  std::map<std::pair<std::string, std::string>, int64_t> where;  // place -> weight
  std::vector<std::pair<int64_t, size_t>> rows;  // evidence candidates: (weight, memop)
  WhatIf fix;

  void Add(const Context& c, size_t memop, int64_t weight);
  // The finding: placed where most of the weight is, the heaviest copies as evidence (what a
  // copy weighs is the rule's: its time, or the host time it blocked).
  void Emit(const Context& c, std::vector<Candidate>& out, std::string_view rule,
            std::string detail);
  // "2.0 per iteration" for the group's copies (Context::PerIterationText).
  std::string PerIteration(const Context& c) const {
    return c.PerIterationText(static_cast<double>(n));
  }
};

}  // namespace gpuscope::analysis::internal
