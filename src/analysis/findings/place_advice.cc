#include "analysis/findings/place_advice.h"

#include <algorithm>
#include <array>

namespace gpuscope::analysis::internal {
namespace {

bool Has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

struct Keyed {
  KnownPlace place;
  std::array<std::string_view, 5> rules;  // the rules whose findings there it advises
  std::string_view advice;
};

constexpr Keyed kKeyed[] = {
    {KnownPlace::kOptimizerStep,
     {"launch-bound", "cpu-op-storm", "fusion", "gpu-idle", ""},
     "The optimizer updates parameter by parameter: construct it with foreach=True (one "
     "multi-tensor kernel per op for all parameters) or fused=True (one kernel for the whole "
     "step; Adam, AdamW, SGD), e.g. torch.optim.AdamW(model.parameters(), lr=lr, fused=True); "
     "torch.compile of the step fuses it as well."},
    {KnownPlace::kZeroGrad,
     {"launch-bound", "cpu-op-storm", "fusion", "gpu-idle", ""},
     "optimizer.zero_grad(set_to_none=True) (the default since PyTorch 2.0): the gradients are "
     "dropped instead of zero-filled by one kernel per parameter."},
    {KnownPlace::kDataLoader,
     {"data-loading", "gpu-idle", "cpu-op-storm", "", ""},
     "Prepare batches in worker processes, ahead of the step: DataLoader(num_workers=4 or more, "
     "pin_memory=True, persistent_workers=True), then batch.to(device, non_blocking=True)."},
    {KnownPlace::kToDevice,
     {"memcpy-sync", "memcpy-pageable", "memcpy-in-loop", "small-memcpy", "gpu-idle"},
     "Copy from pinned memory without blocking: DataLoader(pin_memory=True) or "
     "tensor.pin_memory(), then .to(device, non_blocking=True); move what does not change "
     "(weights, constants) to the device once, before the loop."},
    {KnownPlace::kItem,
     {"host-sync", "gpu-idle", "", "", ""},
     "Keep the value on the device: accumulate it in a tensor (total += loss.detach()) and call "
     ".item() once every N steps or after the loop; decide on the device (torch.where) instead "
     "of branching in Python on an .item()."},
};

}  // namespace

KnownPlace PlaceOfName(std::string_view n) {
  if (Has(n, "zero_grad")) return KnownPlace::kZeroGrad;
  if (n.starts_with("Optimizer.step") || Has(n, "Optimizer.step#"))
    return KnownPlace::kOptimizerStep;
  if (Has(n, "DataLoader")) return KnownPlace::kDataLoader;
  if (n == "aten::item" || n == "aten::_local_scalar_dense") return KnownPlace::kItem;
  if (n == "aten::to" || n == "aten::_to_copy" || n == "aten::copy_") return KnownPlace::kToDevice;
  return KnownPlace::kNone;
}

KnownPlace PlaceOfOp(const Trace& t, RowId op) {
  for (int guard = 0; op != kNoRow && guard < 256; ++guard, op = t.cpu.parent[op]) {
    const KnownPlace p = PlaceOfName(t.str(t.cpu.name[op]));
    if (p != KnownPlace::kNone) return p;
  }
  return KnownPlace::kNone;
}

std::string_view PlaceAdvice(KnownPlace place, std::string_view rule) {
  for (const Keyed& k : kKeyed) {
    if (k.place == place && std::find(k.rules.begin(), k.rules.end(), rule) != k.rules.end())
      return k.advice;
  }
  return {};
}

void AdviseAt(const Context& c, Finding& f, RowId op) {
  if (!c.ecosystem().framework) return;  // a CUDA/HIP program has no such places
  if (std::string_view advice = PlaceAdvice(PlaceOfOp(c.t(), op), f.rule); !advice.empty())
    f.advice = std::string(advice);
}

void AdviseByPlace(const Context& c, std::vector<Candidate>& cands) {
  if (!c.ecosystem().framework) return;
  for (Candidate& cand : cands) {
    Finding& f = cand.finding;
    KnownPlace p = PlaceOfName(f.where.op);
    if (p == KnownPlace::kNone) p = PlaceOfName(f.where.python);
    if (std::string_view advice = PlaceAdvice(p, f.rule); !advice.empty())
      f.advice = std::string(advice);
  }
}

}  // namespace gpuscope::analysis::internal
