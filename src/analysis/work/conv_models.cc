// Convolutions: forward and backward, from input, weight, stride, padding and dilation.

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/work/model_args.h"

namespace gpuscope::analysis::work_internal {

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

}  // namespace gpuscope::analysis::work_internal
