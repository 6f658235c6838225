// Attention: scaled dot-product and flash attention (causal or not), paged attention.

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/work/model_args.h"

namespace gpuscope::analysis::work_internal {

namespace {

// Query-key pairs computed: all, or the causal triangle aligned top-left (PyTorch SDPA) or
// bottom-right (flash-attn: the last query sees every key).
double Pairs(double lq, double lk, bool causal, bool bottom_right) {
  if (!causal) return lq * lk;
  // sum over rows i < lq of clamp(i + 1 + shift, 0, lk), in closed form: rows before i_lo see
  // no key, rows from i_hi on see all lk keys, rows between see i + 1 + shift.
  double shift = bottom_right ? lk - lq : 0;
  double i_lo = std::max(0.0, -shift);
  double i_hi = std::clamp(lk - 1 - shift, std::min(i_lo, lq), lq);
  i_lo = std::min(i_lo, i_hi);
  double n = i_hi - i_lo;
  return n * (1 + shift) + (i_lo + i_hi - 1) * n / 2 + (lq - i_hi) * lk;
}

}  // namespace

WorkEstimate Attention(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* q = TensorAt(a, 0, 3);
  const Dims* k = TensorAt(a, 1, 3);
  const Dims* v = TensorAt(a, 2, 3);
  Elem eq;
  if (!q || !k || !v || !ElemAt(a, 0, &eq) || q->size() != k->size())
    return Fail("query/key/value shapes not recorded");
  bool flash_pkg = op == "flash_attn::_flash_attn_forward";
  // Layouts: [B, H, L, D] (PyTorch SDPA) or [B, L, H, D] (flash-attn); 3-D = no batch.
  size_t r = q->size();
  auto dim = [&](const Dims& t, int from_end) {
    return static_cast<double>(t[r - static_cast<size_t>(from_end)]);
  };
  double B = r == 4 ? static_cast<double>((*q)[0]) : 1;
  double H = flash_pkg ? dim(*q, 2) : dim(*q, 3);
  double Lq = flash_pkg ? dim(*q, 3) : dim(*q, 2);
  double Lk = flash_pkg ? dim(*k, 3) : dim(*k, 2);
  double D = dim(*q, 1), Dv = static_cast<double>(v->back());
  int causal_at = op == "aten::scaled_dot_product_attention"          ? 5
                  : op == "aten::_scaled_dot_product_flash_attention" ? 4
                  : flash_pkg                                         ? 5
                                                                      : 6;
  bool causal = BoolAt(a, static_cast<size_t>(causal_at), false);
  const Dims* mask = op == "aten::scaled_dot_product_attention" ? TensorAt(a, 3) : nullptr;
  double pairs = Pairs(Lq, Lk, causal && !mask, flash_pkg);
  double flops = 2 * B * H * pairs * D + 2 * B * H * pairs * Dv;
  double bytes = (Numel(*q) + Numel(*k) + Numel(*v) + B * H * Lq * Dv) * eq.bytes;
  if (mask) {
    Elem em;
    bytes += Numel(*mask) * (ElemAt(a, 3, &em) ? em.bytes : 1);
  }
  return Ok(Matrix(flops, bytes, eq));
}

WorkEstimate PagedAttention(std::string_view, const OpArgs&) {
  return Fail("paged attention: the context lengths are in the KV cache, not in the op's shapes");
}

}  // namespace gpuscope::analysis::work_internal
