#pragma once
// Advice keyed to the well-known places of a PyTorch program: where a finding points at the
// optimizer's step or zero_grad, the DataLoader, a .to() copy or an .item(), the fix is known
// (foreach/fused optimizers, set_to_none, loader workers, pinned non-blocking copies, values kept
// on the device) and replaces the rule's general advice.

#include <string_view>

#include "analysis/findings/context.h"

namespace gpuscope::analysis::internal {

enum class KnownPlace { kNone, kOptimizerStep, kZeroGrad, kDataLoader, kToDevice, kItem };

// The place an op, annotation or frame name is ("Optimizer.step#AdamW.step", "aten::item", ...).
KnownPlace PlaceOfName(std::string_view name);
// The innermost well-known place of an op and the ranges around it (an aten::add_ inside
// Optimizer.step#SGD.step is the optimizer's step).
KnownPlace PlaceOfOp(const Trace& t, RowId op);
// The advice for a finding of `rule` at `place`; "" where the rule's own advice fits better.
std::string_view PlaceAdvice(KnownPlace place, std::string_view rule);

// A framework program's finding at the op a rule pointed at (and the ranges around it): its
// keyed advice, where that place has one.
void AdviseAt(const Context& c, Finding& f, RowId op);
// Each framework program's finding whose Where names a well-known place: its keyed advice.
void AdviseByPlace(const Context& c, std::vector<Candidate>& cands);

}  // namespace gpuscope::analysis::internal
