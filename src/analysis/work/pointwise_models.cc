// The memory-bound families: norms, softmax, elementwise, act-and-mul, cat, reductions,
// embeddings and Inductor's Triton kernels.

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/work/model_args.h"

namespace gpuscope::analysis::work_internal {

namespace {

OpWork Vector(double flops, double bytes, const Elem& e, double written = 0) {
  OpWork w;
  w.flops = flops, w.bytes = bytes, w.precision = Precision::kFp32, w.dtype = e.name;
  w.written = written;
  return w;
}

}  // namespace

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
  return Ok(
      Vector((rms ? 4 : 7) * n + (fused_add ? n : 0), bytes, e, (fused_add ? 2 : 1) * n * e.bytes));
}

WorkEstimate Softmax(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* x = TensorAt(a, 0);
  Elem e;
  if (!x || !ElemAt(a, 0, &e)) return Fail("input shape not recorded");
  bool half_to_float = BoolAt(a, 2, false);
  double n = Numel(*x);
  double out = n * (half_to_float ? 4 : e.bytes);
  return Ok(Vector(5 * n, n * e.bytes + out, e, out));
}

namespace {

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

}  // namespace

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
  return Ok(Vector(moves_only ? 0 : n, read + n * out_bytes, e, n * out_bytes));
}

// act_and_mul(out [.., d], x [.., 2d]): read x, write out.
WorkEstimate ActAndMul(std::string_view, const OpArgs& a) {
  if (a.shapes.empty()) return Fail(std::string(kNoShapes));
  const Dims* out = TensorAt(a, 0);
  const Dims* x = TensorAt(a, 1);
  Elem e;
  if (!out || !x || !ElemAt(a, 1, &e)) return Fail("input/output shapes not recorded");
  return Ok(Vector(5 * Numel(*out), (Numel(*x) + Numel(*out)) * e.bytes, e, Numel(*out) * e.bytes));
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

}  // namespace gpuscope::analysis::work_internal
