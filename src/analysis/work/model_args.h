#pragma once
// What the work models read from an op's recorded arguments (model/op_args.h): tensors' dims and
// element types, scalars, lists; and the estimates they return. Internal to analysis/work (the
// family files *_models.cc).

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/work/work_models.h"

namespace gpuscope::analysis::work_internal {

using model::OpArgs;
using Dims = std::vector<int64_t>;

inline WorkEstimate Fail(std::string why) {
  WorkEstimate e;
  e.why = std::move(why);
  return e;
}

inline double Numel(const Dims& d) {
  double n = 1;
  for (int64_t v : d) n *= static_cast<double>(std::max<int64_t>(v, 0));
  return n;
}

// The dims of argument i when it is a tensor with at least `min_rank` dims; nullptr otherwise.
inline const Dims* TensorAt(const OpArgs& a, size_t i, size_t min_rank = 1) {
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
inline bool ElemAt(const OpArgs& a, size_t i, Elem* e) {
  return i < a.types.size() && ElementType(a.types[i], &e->bytes, &e->precision, &e->name);
}

inline std::string ConcreteAt(const OpArgs& a, size_t i) {
  return i < a.concrete.size() ? a.concrete[i] : std::string();
}

// "True"/"False"/"1"/"0" -> value; absent or unreadable -> fallback.
inline bool BoolAt(const OpArgs& a, size_t i, bool fallback) {
  std::string v = ConcreteAt(a, i);
  if (v == "True" || v == "true" || v == "1") return true;
  if (v == "False" || v == "false" || v == "0") return false;
  return fallback;
}

// "[1, 1]" or "2" -> integers; false when unreadable or absent.
inline bool IntsAt(const OpArgs& a, size_t i, Dims* out) {
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
inline int ScalarTypeBytes(int64_t code) {
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

inline OpWork Matrix(double flops, double bytes, const Elem& e) {
  OpWork w;
  w.flops = flops, w.bytes = bytes, w.matrix = true, w.precision = e.precision, w.dtype = e.name;
  return w;
}

inline WorkEstimate Ok(OpWork w) {
  WorkEstimate e;
  e.ok = true;
  e.work = std::move(w);
  return e;
}

inline constexpr std::string_view kNoShapes =
    "no shapes recorded (profile with record_shapes=True)";

// The estimators of each family, as WorkModels() lists them.
WorkEstimate Gemm(std::string_view op, const OpArgs& a);  // gemm_models.cc
WorkEstimate GroupedGemm(std::string_view op, const OpArgs& a);
WorkEstimate FusedMoe(std::string_view op, const OpArgs& a);
WorkEstimate Convolution(std::string_view op, const OpArgs& a);  // conv_models.cc
WorkEstimate Attention(std::string_view op, const OpArgs& a);    // attention_models.cc
WorkEstimate PagedAttention(std::string_view op, const OpArgs& a);
WorkEstimate Norm(std::string_view op, const OpArgs& a);  // pointwise_models.cc
WorkEstimate Softmax(std::string_view op, const OpArgs& a);
WorkEstimate Elementwise(std::string_view op, const OpArgs& a);
WorkEstimate ActAndMul(std::string_view op, const OpArgs& a);
WorkEstimate Cat(std::string_view op, const OpArgs& a);
WorkEstimate Reduction(std::string_view op, const OpArgs& a);
WorkEstimate Embedding(std::string_view op, const OpArgs& a);
WorkEstimate Triton(std::string_view op, const OpArgs& a);

}  // namespace gpuscope::analysis::work_internal
