// The GEMM family: matrix multiplies, grouped GEMMs and fused MoE experts.

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/work/model_args.h"

namespace gpuscope::analysis::work_internal {

WorkEstimate Gemm(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  // Positions of A, B and the added input C (-1: none) per op.
  int ia = 0, ib = 1, ic = -1;
  if (op == "aten::addmm" || op == "aten::baddbmm" || op == "aten::addbmm") ia = 1, ib = 2, ic = 0;
  const Dims* A = TensorAt(a, static_cast<size_t>(ia));
  const Dims* B = TensorAt(a, static_cast<size_t>(ib));
  Elem ea, eb;
  if (!A || !B) return Fail("the matrix operands' shapes are not recorded");
  if (!ElemAt(a, static_cast<size_t>(ia), &ea) || !ElemAt(a, static_cast<size_t>(ib), &eb))
    return Fail("the operands' element types are not recorded (emit_nvtx records sizes only)");
  double M = 0, N = 0, K = 0, batch = 1;
  if (op == "aten::linear") {
    // input [..., K] x weight[N, K]^T (+ bias[N])
    if (B->size() != 2 || A->back() != (*B)[1]) return Fail("linear shapes do not match");
    K = static_cast<double>(A->back()), N = static_cast<double>((*B)[0]);
    M = Numel(*A) / std::max(K, 1.0);
    ic = TensorAt(a, 2) ? 2 : -1;
  } else if (op == "aten::matmul") {
    // Broadcasting matmul: 1-D operands are a row / a column; batch dims broadcast.
    Dims x = *A, y = *B;
    if (x.size() == 1) x.insert(x.begin(), 1);
    if (y.size() == 1) y.push_back(1);
    if (x.back() != y[y.size() - 2]) return Fail("matmul inner dimensions do not match");
    M = static_cast<double>(x[x.size() - 2]), K = static_cast<double>(x.back());
    N = static_cast<double>(y.back());
    size_t bx = x.size() - 2, by = y.size() - 2, nb = std::max(bx, by);
    for (size_t i = 0; i < nb; ++i) {
      int64_t dx = i < nb - bx ? 1 : x[i - (nb - bx)];
      int64_t dy = i < nb - by ? 1 : y[i - (nb - by)];
      batch *= static_cast<double>(std::max(dx, dy));
    }
  } else if (op == "aten::bmm" || op == "aten::baddbmm" || op == "aten::addbmm") {
    if (A->size() != 3 || B->size() != 3 || (*A)[2] != (*B)[1])
      return Fail("bmm shapes do not match");
    batch = static_cast<double>((*A)[0]);
    M = static_cast<double>((*A)[1]), K = static_cast<double>((*A)[2]);
    N = static_cast<double>((*B)[2]);
  } else {  // mm, addmm, _scaled_mm
    if (A->size() != 2 || B->size() != 2 || (*A)[1] != (*B)[0])
      return Fail("mm shapes do not match");
    M = static_cast<double>((*A)[0]), K = static_cast<double>((*A)[1]);
    N = static_cast<double>((*B)[1]);
  }
  double out_bytes = ea.bytes;
  if (op == "aten::_scaled_mm") {
    // (A, B, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum): the output is
    // out_dtype when recorded, else bf16 (what fp8 inference writes).
    Dims code;
    out_bytes = IntsAt(a, 6, &code) && ScalarTypeBytes(code[0]) ? ScalarTypeBytes(code[0]) : 2;
    ic = TensorAt(a, 4) ? 4 : -1;
  }
  double bytes = batch * (M * K * ea.bytes + K * N * eb.bytes + M * N * out_bytes);
  // `A` broadcast over the batch in matmul is read once per batch entry; close enough for the
  // floor (a broadcast operand stays in cache).
  if (ic >= 0) {
    const Dims* C = TensorAt(a, static_cast<size_t>(ic), 0);
    Elem ec;
    if (C && ElemAt(a, static_cast<size_t>(ic), &ec)) bytes += Numel(*C) * ec.bytes;
  }
  // Mixed operands (fp8 x bf16) run at the wider type's rate.
  return Ok(Matrix(2 * batch * M * N * K, bytes, eb.bytes > ea.bytes ? eb : ea));
}

WorkEstimate GroupedGemm(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* A = TensorAt(a, 0);
  const Dims* B = TensorAt(a, 1);
  Elem ea, eb;
  if (!A || !B || !ElemAt(a, 0, &ea) || !ElemAt(a, 1, &eb))
    return Fail("the grouped operands' shapes or types are not recorded");
  double flops = 0, out = 0;
  if (A->size() == 2 && B->size() == 3 && (*A)[1] == (*B)[1]) {
    // tokens [Mt, K] x experts [G, K, N]: each row meets one group's matrix.
    flops = 2 * Numel(*A) * static_cast<double>((*B)[2]);
    out = static_cast<double>((*A)[0]) * static_cast<double>((*B)[2]);
  } else if (A->size() == 3 && B->size() == 3 && (*A)[0] == (*B)[0] && (*A)[2] == (*B)[1]) {
    flops = 2 * Numel(*A) * static_cast<double>((*B)[2]);
    out =
        static_cast<double>((*A)[0]) * static_cast<double>((*A)[1]) * static_cast<double>((*B)[2]);
  } else if (A->size() == 2 && B->size() == 2 && (*A)[1] == (*B)[0]) {
    // [M, Kt] x [Kt, N], K split into groups by offs: the groups' outputs are [G, M, N].
    const Dims* offs = TensorAt(a, op == "aten::_grouped_mm" ? 2 : 4);
    double groups = offs ? Numel(*offs) : 1;
    flops = 2 * Numel(*A) * static_cast<double>((*B)[1]);
    out = groups * static_cast<double>((*A)[0]) * static_cast<double>((*B)[1]);
  } else {
    return Fail("grouped GEMM shapes not recognised");
  }
  double bytes = Numel(*A) * ea.bytes + Numel(*B) * eb.bytes + out * 2;
  return Ok(Matrix(flops, bytes, ea.bytes >= eb.bytes ? ea : eb));
}

// vLLM's fused MoE (hidden [T, K], w1 [E, N1, K], w2 [E, K, I], topk_weights [T, topk], ...).
WorkEstimate FusedMoe(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* h = TensorAt(a, 0);
  const Dims* w1 = TensorAt(a, 1);
  const Dims* w2 = TensorAt(a, 2);
  const Dims* tw = TensorAt(a, 3);
  Elem eh, ew;
  if (!h || !w1 || !w2 || !tw || h->size() != 2 || w1->size() != 3 || w2->size() != 3 ||
      tw->size() != 2 || !ElemAt(a, 0, &eh) || !ElemAt(a, 1, &ew))
    return Fail("fused-MoE arguments not recognised (hidden, w1, w2, topk_weights)");
  double T = static_cast<double>((*h)[0]), K = static_cast<double>((*h)[1]);
  double E = static_cast<double>((*w1)[0]), N1 = static_cast<double>((*w1)[1]);
  double I = static_cast<double>((*w2)[2]), topk = static_cast<double>((*tw)[1]);
  if ((*w1)[2] != (*h)[1] || (*w2)[1] != (*h)[1]) return Fail("fused-MoE shapes do not match");
  double routed = T * topk;
  double flops = 2 * routed * N1 * K + 2 * routed * K * I;
  double experts = std::min(E, routed);  // experts whose weights must be read
  double bytes = 2 * T * K * eh.bytes + experts * (N1 * K + K * I) * ew.bytes;
  // Weight-only quantisation dequantises to the activations' type.
  return Ok(Matrix(flops, bytes, ew.precision == eh.precision ? ew : eh));
}

}  // namespace gpuscope::analysis::work_internal
