#include "analysis/work/work_models.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

namespace gpuscope::analysis {
namespace {

using model::OpArgs;
using Dims = std::vector<int64_t>;

WorkEstimate Fail(std::string why) {
  WorkEstimate e;
  e.why = std::move(why);
  return e;
}

double Numel(const Dims& d) {
  double n = 1;
  for (int64_t v : d) n *= static_cast<double>(std::max<int64_t>(v, 0));
  return n;
}

// The dims of argument i when it is a tensor with at least `min_rank` dims; nullptr otherwise.
const Dims* TensorAt(const OpArgs& a, size_t i, size_t min_rank = 1) {
  if (i >= a.shapes.size() || !a.shapes[i].known || a.shapes[i].dims.size() < min_rank)
    return nullptr;
  return &a.shapes[i].dims;
}

struct Elem {
  int bytes = 0;
  Precision precision = Precision::kFp32;
  std::string name;
};

// The element type of argument i; false when the trace does not give a tensor type there.
bool ElemAt(const OpArgs& a, size_t i, Elem* e) {
  return i < a.types.size() && ElementType(a.types[i], &e->bytes, &e->precision, &e->name);
}

std::string ConcreteAt(const OpArgs& a, size_t i) {
  return i < a.concrete.size() ? a.concrete[i] : std::string();
}

// "True"/"False"/"1"/"0" -> value; absent or unreadable -> fallback.
bool BoolAt(const OpArgs& a, size_t i, bool fallback) {
  std::string v = ConcreteAt(a, i);
  if (v == "True" || v == "true" || v == "1") return true;
  if (v == "False" || v == "false" || v == "0") return false;
  return fallback;
}

// "[1, 1]" or "2" -> integers; false when unreadable or absent.
bool IntsAt(const OpArgs& a, size_t i, Dims* out) {
  std::string v = ConcreteAt(a, i);
  out->clear();
  const char* p = v.data();
  const char* end = v.data() + v.size();
  while (p < end) {
    if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') {
      ++p;
      continue;
    }
    int64_t x = 0;
    auto [q, ec] = std::from_chars(p, end, x);
    if (ec != std::errc()) return false;
    out->push_back(x);
    p = q;
  }
  return !out->empty();
}

// torch.dtype codes as Concrete Inputs write them (c10::ScalarType): the element size.
int ScalarTypeBytes(int64_t code) {
  switch (code) {
    case 0:
    case 1:
    case 11:
    case 23:
    case 24:
    case 25:
    case 26:
      return 1;  // u8 i8 bool fp8s
    case 2:
    case 5:
    case 15:
      return 2;  // i16 f16 bf16
    case 3:
    case 6:
      return 4;  // i32 f32
    case 4:
    case 7:
    case 9:
      return 8;  // i64 f64 c64
    default:
      return 0;
  }
}

OpWork Matrix(double flops, double bytes, const Elem& e) {
  OpWork w;
  w.flops = flops, w.bytes = bytes, w.matrix = true, w.precision = e.precision, w.dtype = e.name;
  return w;
}

WorkEstimate Ok(OpWork w) {
  WorkEstimate e;
  e.ok = true;
  e.work = std::move(w);
  return e;
}

constexpr std::string_view kNoShapes = "no shapes recorded (profile with record_shapes=True)";

// ---- GEMM family ----------------------------------------------------------------------------

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

// ---- convolution ----------------------------------------------------------------------------

WorkEstimate Convolution(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* x = TensorAt(a, 0, 3);
  const Dims* w = TensorAt(a, 1, 3);
  Elem ex;
  if (!x || !w || !ElemAt(a, 0, &ex) || x->size() != w->size())
    return Fail("input/weight shapes not recorded");
  // Argument positions of stride, padding, dilation, transposed, groups per overload.
  int s = 3, p = 4, d = 5, tr = 6, g = 8;
  if (op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d") {
    s = 3, p = 4, d = 5, tr = -1, g = 6;
  } else if (op == "aten::cudnn_convolution" || op == "aten::miopen_convolution") {
    p = 2, s = 3, d = 4, tr = -1, g = 5;
  }
  size_t spatial = x->size() - 2;
  Dims stride, pad, dil, groups_v;
  if (!IntsAt(a, static_cast<size_t>(s), &stride)) return Fail("stride not recorded");
  std::string pad_text = ConcreteAt(a, static_cast<size_t>(p));
  bool same = pad_text == "same", valid = pad_text == "valid";
  if (!same && !valid && !IntsAt(a, static_cast<size_t>(p), &pad))
    return Fail("padding not recorded");
  if (!IntsAt(a, static_cast<size_t>(d), &dil)) dil = {1};
  int64_t groups = IntsAt(a, static_cast<size_t>(g), &groups_v) ? groups_v[0] : 1;
  bool transposed = tr >= 0 && BoolAt(a, static_cast<size_t>(tr), false);
  auto at = [](const Dims& v, size_t i) {
    return v.size() == 1 ? v[0] : (i < v.size() ? v[i] : 1);
  };
  double N = static_cast<double>((*x)[0]), C = static_cast<double>((*x)[1]);
  double kernel = 1, out_spatial = 1, in_spatial = 1;
  for (size_t i = 0; i < spatial; ++i) {
    // In doubles: recorded values are not trusted to keep int64 arithmetic from overflowing.
    double in = static_cast<double>((*x)[i + 2]), k = static_cast<double>((*w)[i + 2]);
    double st = std::max(1.0, static_cast<double>(at(stride, i)));
    double dl = static_cast<double>(at(dil, i));
    double pd = valid || same ? 0 : static_cast<double>(at(pad, i));
    double o = transposed ? (in - 1) * st - 2 * pd + dl * (k - 1) + 1
               : same     ? in
                          : std::floor((in + 2 * pd - dl * (k - 1) - 1) / st) + 1;
    if (!(o > 0) || !(k > 0) || !(in > 0)) return Fail("convolution output size not positive");
    kernel *= k;
    out_spatial *= o;
    in_spatial *= in;
  }
  double O = 0, flops = 0;
  if (transposed) {
    // weight [C_in, O/g, k...]: every input pixel scatters into O/g x kernel outputs.
    O = static_cast<double>((*w)[1]) * static_cast<double>(groups);
    flops = 2 * N * C * in_spatial * static_cast<double>((*w)[1]) * kernel;
  } else {
    // weight [O, C/g, k...]
    O = static_cast<double>((*w)[0]);
    flops = 2 * N * O * out_spatial * static_cast<double>((*w)[1]) * kernel;
  }
  double bytes = (Numel(*x) + Numel(*w) + N * O * out_spatial) * ex.bytes;
  if (const Dims* b = TensorAt(a, 2)) bytes += Numel(*b) * ex.bytes;
  OpWork work = Matrix(flops, bytes, ex);
  // cuDNN runs fp32 convolutions in TF32 unless told not to (torch.backends.cudnn.allow_tf32).
  if (ex.precision == Precision::kFp32) work.precision = Precision::kTf32;
  return Ok(work);
}

// ---- attention ------------------------------------------------------------------------------

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

// ---- memory-bound families ------------------------------------------------------------------

OpWork Vector(double flops, double bytes, const Elem& e) {
  OpWork w;
  w.flops = flops, w.bytes = bytes, w.precision = Precision::kFp32, w.dtype = e.name;
  return w;
}

// Norms: read the input and parameters, write the output. FLOPs per element stated in the
// formula (mean, variance, normalise, scale, shift).
WorkEstimate Norm(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  size_t in = (op == "vllm::rms_norm" || op == "_C::rms_norm") ? 1 : 0;
  const Dims* x = TensorAt(a, in);
  Elem e;
  if (!x || !ElemAt(a, in, &e)) return Fail("input shape not recorded");
  bool rms = op.find("rms") != std::string_view::npos;
  bool fused_add = op.find("fused_add") != std::string_view::npos;
  double n = Numel(*x);
  double params = 0;
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    if (i == in || !TensorAt(a, i)) continue;
    Elem ep;
    double m = Numel(a.shapes[i].dims);
    if (m < n && ElemAt(a, i, &ep)) params += m * ep.bytes;  // weight / bias / running stats
  }
  // fused_add_rms_norm(input, residual, weight): reads both, writes both.
  double bytes = (fused_add ? 4 : 2) * n * e.bytes + params;
  return Ok(Vector((rms ? 4 : 7) * n + (fused_add ? n : 0), bytes, e));
}

WorkEstimate Softmax(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* x = TensorAt(a, 0);
  Elem e;
  if (!x || !ElemAt(a, 0, &e)) return Fail("input shape not recorded");
  bool half_to_float = BoolAt(a, 2, false);
  double n = Numel(*x);
  return Ok(Vector(5 * n, n * e.bytes + n * (half_to_float ? 4 : e.bytes), e));
}

// Broadcast shape of every tensor argument.
Dims Broadcast(const OpArgs& a, double* read_bytes, Elem* first, bool* any) {
  Dims out;
  *read_bytes = 0, *any = false;
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    Elem e;
    if (!a.shapes[i].known || !ElemAt(a, i, &e)) continue;
    const Dims& d = a.shapes[i].dims;
    if (!*any) *first = e;
    *any = true;
    *read_bytes += Numel(d) * e.bytes;
    if (d.size() > out.size()) out.insert(out.begin(), d.size() - out.size(), 1);
    for (size_t j = 0; j < d.size(); ++j) {
      int64_t& o = out[out.size() - d.size() + j];
      o = std::max(o, d[j]);
    }
  }
  return out;
}

// Elementwise, copies and casts: read every tensor input, write the broadcast output once.
WorkEstimate Elementwise(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  // The .out overloads (what in-place ops such as relu_ call: clamp_min.out(x, 0, out=x)) take
  // the output last, after a non-tensor argument; functional overloads never put a tensor
  // after one. That argument is written, not read.
  OpArgs inputs = a;
  bool has_out = false;
  if (a.shapes.size() >= 2 && a.shapes.back().known && !a.shapes.back().dims.empty()) {
    for (size_t i = 0; i + 1 < a.shapes.size(); ++i)
      has_out =
          has_out || (a.shapes[i].known && a.shapes[i].dims.empty() && a.shapes[i].list.empty());
  }
  if (has_out) inputs.shapes.pop_back();
  double read = 0;
  Elem e;
  bool any = false;
  Dims out = Broadcast(inputs, &read, &e, &any);
  if (!any) return Fail("no tensor argument recorded");
  double n = Numel(out);
  double out_bytes = e.bytes;
  if (op == "aten::_to_copy" || op == "aten::to") {
    Dims code;
    if (IntsAt(a, 1, &code) && ScalarTypeBytes(code[0])) out_bytes = ScalarTypeBytes(code[0]);
  } else if (op == "aten::copy_") {
    // copy_(self, src): reads src, writes self; self is not read.
    Elem es;
    const Dims* self = TensorAt(a, 0, 0);
    if (self && ElemAt(a, 0, &es)) read -= Numel(*self) * es.bytes;
  } else if (op == "aten::fill_" || op == "aten::zero_") {
    read = 0;
  } else if (op == "aten::eq" || op == "aten::ne" || op == "aten::lt" || op == "aten::le" ||
             op == "aten::gt" || op == "aten::ge" || op.rfind("aten::logical_", 0) == 0) {
    out_bytes = 1;  // comparisons and logical ops write bool
  }
  bool moves_only = op == "aten::copy_" || op == "aten::_to_copy" || op == "aten::to" ||
                    op == "aten::clone" || op == "aten::fill_" || op == "aten::zero_" ||
                    op == "aten::contiguous";
  return Ok(Vector(moves_only ? 0 : n, read + n * out_bytes, e));
}

// act_and_mul(out [.., d], x [.., 2d]): read x, write out.
WorkEstimate ActAndMul(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* out = TensorAt(a, 0);
  const Dims* x = TensorAt(a, 1);
  Elem e;
  if (!out || !x || !ElemAt(a, 1, &e)) return Fail("input/output shapes not recorded");
  return Ok(Vector(5 * Numel(*out), (Numel(*x) + Numel(*out)) * e.bytes, e));
}

WorkEstimate Cat(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  if (a.shapes[0].list.empty()) return Fail("the list's shapes are not recorded");
  Elem e;
  if (!ElemAt(a, 0, &e)) {
    // A TensorList's type is written "TensorList": the element size is not recorded.
    return Fail("the list's element type is not recorded");
  }
  double n = 0;
  for (const Dims& d : a.shapes[0].list) n += Numel(d);
  return Ok(Vector(0, 2 * n * e.bytes, e));
}

// Reductions: read the input once; the (smaller) output is left out.
WorkEstimate Reduction(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* x = TensorAt(a, 0, 0);
  Elem e;
  if (!x || !ElemAt(a, 0, &e)) return Fail("input shape not recorded");
  double n = Numel(*x);
  return Ok(Vector(n, n * e.bytes, e));
}

// embedding(weight [V, D], indices [...]): gather one row per index.
WorkEstimate Embedding(std::string_view op, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  bool index_select = op == "aten::index_select";
  const Dims* w = TensorAt(a, 0, 1);
  const Dims* idx = TensorAt(a, index_select ? 2 : 1, 0);
  Elem ew, ei;
  if (!w || !idx || !ElemAt(a, 0, &ew)) return Fail("weight/index shapes not recorded");
  if (!ElemAt(a, index_select ? 2 : 1, &ei)) ei.bytes = 8;
  double rows = Numel(*idx);
  double row = w->size() >= 2 ? Numel(*w) / static_cast<double>((*w)[0]) : 1;
  return Ok(Vector(0, rows * ei.bytes + 2 * rows * row * ew.bytes, ew));
}

// Inductor-generated pointwise / reduction kernels (triton_poi_*, triton_red_*, triton_per_*): the
// launch op's arguments are the kernel's buffers, each read or written once.
WorkEstimate Triton(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  // The integer scalars after the buffers are the kernel's extents (xnumel, rnumel): it touches
  // at most their product of elements of any buffer (a gather reads a few rows of a big table).
  double extent = 1;
  bool has_extent = false;
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    Dims v;
    if (a.shapes[i].known && a.shapes[i].dims.empty() && IntsAt(a, i, &v) && v.size() == 1 &&
        v[0] > 0)
      extent *= static_cast<double>(v[0]), has_extent = true;
  }
  double bytes = 0, largest = 0;
  Elem first;
  bool any = false, indexed = false;
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    Elem e;
    if (!a.shapes[i].known || a.shapes[i].dims.empty() || !ElemAt(a, i, &e)) continue;
    bool integer = e.name.rfind("int", 0) == 0;
    indexed = indexed || integer;
    if (!any || (first.name.rfind("int", 0) == 0 && !integer)) first = e;  // show a data type
    any = true;
    double n = Numel(a.shapes[i].dims);
    if (has_extent) n = std::min(n, extent);
    bytes += n * e.bytes;
    largest = std::max(largest, n);
  }
  if (!any) return Fail("no tensor argument recorded");
  if (indexed && !has_extent)
    return Fail(
        "indexed access (an integer index buffer) and no extents recorded: the bytes "
        "touched are unknown");
  return Ok(Vector(largest, bytes, first));
}

}  // namespace

bool ElementType(std::string_view t, int* bytes, Precision* precision, std::string* name) {
  struct Known {
    int bytes;
    Precision precision;
    std::string_view name;
  };
  static const std::unordered_map<std::string_view, Known> known = {
      {"float", {4, Precision::kFp32, "fp32"}},
      {"double", {8, Precision::kFp64, "fp64"}},
      {"c10::Half", {2, Precision::kFp16, "fp16"}},
      {"c10::BFloat16", {2, Precision::kBf16, "bf16"}},
      {"c10::Float8_e4m3fn", {1, Precision::kFp8, "fp8"}},
      {"c10::Float8_e5m2", {1, Precision::kFp8, "fp8"}},
      {"c10::Float8_e4m3fnuz", {1, Precision::kFp8, "fp8"}},
      {"c10::Float8_e5m2fnuz", {1, Precision::kFp8, "fp8"}},
      {"signed char", {1, Precision::kInt8, "int8"}},
      {"unsigned char", {1, Precision::kInt8, "uint8"}},
      {"bool", {1, Precision::kInt8, "bool"}},
      {"short int", {2, Precision::kFp32, "int16"}},
      {"int", {4, Precision::kFp32, "int32"}},
      {"long int", {8, Precision::kFp32, "int64"}},
      {"long", {8, Precision::kFp32, "int64"}},
      {"c10::complex<float>", {8, Precision::kFp32, "complex64"}},
      {"c10::complex<double>", {16, Precision::kFp64, "complex128"}},
  };
  auto it = known.find(t);
  if (it == known.end()) return false;
  *bytes = it->second.bytes, *precision = it->second.precision;
  *name = std::string(it->second.name);
  return true;
}

const std::vector<WorkModel>& WorkModels() {
  static const std::vector<WorkModel> models = {
      {"gemm",
       "aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::addbmm, aten::matmul, "
       "aten::linear, aten::_scaled_mm",
       "FLOPs = 2 x batch x M x N x K (A [batch.., M, K] x B [batch.., K, N]; linear: M = "
       "input elements / K, N = weight rows; matmul broadcasts batch dims, a 1-D operand is a "
       "row/column). Bytes = A + B + output (+ the added input / bias), each once; _scaled_mm "
       "writes out_dtype when recorded, else bf16. Peak: the matrix units at the wider operand's "
       "type.",
       &Gemm},
      {"grouped gemm", "aten::_grouped_mm, aten::_scaled_grouped_mm",
       "tokens [Mt, K] x experts [G, K, N]: FLOPs = 2 x Mt x K x N; [G, M, K] x [G, K, N]: "
       "2 x G x M x N x K; [M, Kt] x [Kt, N] split by offs: 2 x M x Kt x N. Bytes = both "
       "operands + output (2 bytes per element).",
       &GroupedGemm},
      {"fused moe", "vllm::outplace_fused_experts, vllm::inplace_fused_experts",
       "hidden [T, K], w1 [E, N1, K], w2 [E, K, I], topk_weights [T, topk]: FLOPs = 2 x T x topk "
       "x (N1 x K + K x I). Bytes = hidden in and out + the weights of min(E, T x topk) experts.",
       &FusedMoe},
      {"convolution",
       "aten::convolution, aten::_convolution, aten::conv1d, aten::conv2d, aten::conv3d, "
       "aten::cudnn_convolution, aten::miopen_convolution",
       "FLOPs = 2 x N x O x output pixels x C/groups x kernel size (output size from stride, "
       "padding, dilation in Concrete Inputs; transposed: 2 x N x C x input pixels x O/groups x "
       "kernel). Bytes = input + weight + output (+ bias). fp32 runs at the TF32 rate where the "
       "device has one (cuDNN's default).",
       &Convolution},
      {"attention",
       "aten::scaled_dot_product_attention, aten::_scaled_dot_product_flash_attention, "
       "aten::_scaled_dot_product_efficient_attention, aten::_scaled_dot_product_cudnn_attention, "
       "flash_attn::_flash_attn_forward",
       "FLOPs = 2 x B x H x pairs x (D + Dv), pairs = Lq x Lk, or with is_causal the causal "
       "triangle (top-left aligned for PyTorch, bottom-right for flash-attn: Lq = Lk gives "
       "L(L+1)/2). Layout [B, H, L, D] (flash-attn: [B, L, H, D]). Bytes = q + k + v + output "
       "(+ mask).",
       &Attention},
      {"paged attention",
       "vllm::unified_attention_with_output, vllm::unified_attention, _C::paged_attention_v1, "
       "_C::paged_attention_v2, _rocm_C::paged_attention",
       "Not modelled: the context lengths live in the KV cache, not in the op's shapes "
       "(listed as unmodelled with that reason).",
       &PagedAttention},
      {"normalization",
       "aten::native_layer_norm, aten::layer_norm, aten::rms_norm, aten::_fused_rms_norm, "
       "aten::native_group_norm, aten::native_batch_norm, "
       "aten::_native_batch_norm_legit_no_training, vllm::rms_norm, vllm::fused_add_rms_norm, "
       "_C::rms_norm, _C::fused_add_rms_norm",
       "Bytes = input read + output written (fused_add: input and residual read and written) + "
       "parameters. FLOPs = 7 per element (layer/group/batch norm) or 4 (RMS norm), +1 for the "
       "fused add. Vector FP32 peak.",
       &Norm},
      {"softmax", "aten::_softmax, aten::softmax, aten::_log_softmax, aten::log_softmax",
       "Bytes = input + output (fp32 output with half_to_float). FLOPs = 5 per element.", &Softmax},
      {"elementwise",
       "aten::add, aten::add_, aten::sub, aten::sub_, aten::mul, aten::mul_, aten::div, "
       "aten::div_, aten::neg, aten::relu, aten::relu_, aten::gelu, aten::silu, aten::silu_, "
       "aten::sigmoid, aten::tanh, aten::exp, aten::log, aten::pow, aten::sqrt, aten::rsqrt, "
       "aten::abs, aten::clamp, aten::clamp_min, aten::where, aten::masked_fill, "
       "aten::masked_fill_, aten::fill_, aten::zero_, aten::copy_, aten::_to_copy, aten::clone, "
       "aten::eq, aten::ne, aten::lt, aten::le, aten::gt, aten::ge, aten::logical_not, "
       "aten::logical_and, aten::logical_or, aten::bitwise_and, aten::bitwise_or, "
       "aten::bitwise_not, aten::minimum, aten::maximum, aten::reciprocal, aten::erf, aten::cos, "
       "aten::sin",
       "Bytes = every tensor input read once + the broadcast output written once (copy_ does "
       "not read its destination; _to_copy writes its dtype; comparisons write bool; an .out "
       "overload's last argument, "
       "a tensor after a scalar, is the output: written, not read). FLOPs = 1 per output "
       "element (0 for copies and fills). Vector FP32 peak.",
       &Elementwise},
      {"act and mul", "vllm::silu_and_mul, vllm::gelu_and_mul, _C::silu_and_mul, _C::gelu_and_mul",
       "out [.., d], x [.., 2d]: bytes = x + out, FLOPs = 5 per output element.", &ActAndMul},
      {"concatenation", "aten::cat",
       "Bytes = 2 x the listed inputs (read, written into the output), when the list's element "
       "type is recorded.",
       &Cat},
      {"reduction",
       "aten::sum, aten::mean, aten::amax, aten::amin, aten::max, aten::min, aten::argmax, "
       "aten::norm, aten::linalg_vector_norm, aten::var_mean, aten::std, aten::all, aten::any, "
       "aten::prod",
       "Bytes = the input read once (the smaller output left out). FLOPs = 1 per input element.",
       &Reduction},
      {"triton", "triton_poi_*, triton_red_*, triton_per_* (torch.compile / Inductor)",
       "Bytes = every tensor argument (the kernel's buffers) once, each at most the product of "
       "the integer extents passed after them (xnumel x rnumel: a gather touches a few rows of a "
       "large table; with an integer index buffer and no extents, unmodelled). FLOPs = the largest "
       "such count (one operation per element; fused chains "
       "do a few more). Vector FP32 peak.",
       &Triton},
      {"embedding", "aten::embedding, aten::index_select",
       "Bytes = indices + 2 x (indices x row size) (each gathered row read and written). FLOPs = "
       "0.",
       &Embedding},
  };
  return models;
}

const WorkModel* FindWorkModel(std::string_view op) {
  // Exact names, and the prefixes of families named "prefix*"; views into the static table.
  struct Index {
    std::unordered_map<std::string_view, const WorkModel*> exact;
    std::vector<std::pair<std::string_view, const WorkModel*>> prefixes;
  };
  static const Index index = [] {
    Index ix;
    for (const WorkModel& w : WorkModels()) {
      std::string_view ops = w.ops;
      while (!ops.empty()) {
        size_t comma = ops.find(',');
        std::string_view one = ops.substr(0, comma);
        while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
        one = one.substr(0, one.find(' '));
        if (!one.empty() && one.back() == '*')
          ix.prefixes.emplace_back(one.substr(0, one.size() - 1), &w);
        else if (!one.empty())
          ix.exact.emplace(one, &w);
        ops = comma == std::string_view::npos ? std::string_view() : ops.substr(comma + 1);
      }
    }
    return ix;
  }();
  auto it = index.exact.find(op);
  if (it != index.exact.end()) return it->second;
  for (const auto& [prefix, w] : index.prefixes) {
    if (op.substr(0, prefix.size()) == prefix) return w;
  }
  return nullptr;
}

model::RowId ModelledOpAround(const model::Trace& t, model::RowId row) {
  for (int guard = 0; row != model::kNoRow && guard < 256; ++guard, row = t.cpu.parent[row]) {
    if (t.cpu.kind[row] == model::CpuRangeKind::kOp && FindWorkModel(t.str(t.cpu.name[row])))
      return row;
  }
  return model::kNoRow;
}

WorkEstimate EstimateWork(std::string_view op, std::string_view args_text) {
  const WorkModel* m = FindWorkModel(op);
  if (!m) return Fail("no work model for " + std::string(op));
  model::OpArgs args;
  if (!model::DecodeOpArgs(args_text, &args)) return Fail("the recorded arguments are damaged");
  WorkEstimate e = m->estimate(op, args);
  if (e.ok && !(std::isfinite(e.work.flops) && std::isfinite(e.work.bytes) && e.work.bytes > 0))
    return Fail("the shapes give no work (empty tensors)");
  return e;
}

}  // namespace gpuscope::analysis
