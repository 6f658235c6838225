#pragma once
// What the rules that price GPU work away share (device-copy, fusion): the host time of the ops
// that launched the work goes with it.

#include <vector>

#include "analysis/findings/rules/rule_checks.h"

namespace gpuscope::analysis::internal {

// Adds to `fix` the host time of `ops` (CPU range rows of one place) taken away, each op at most
// the place's median op: a first call that also loaded a module or grew the allocator keeps
// that part (the op's own overhead is what its removal saves). Claims the time removed.
void RemoveHostOps(const Trace& t, const std::vector<RowId>& ops, WhatIf& fix, Claims& claims);

}  // namespace gpuscope::analysis::internal
