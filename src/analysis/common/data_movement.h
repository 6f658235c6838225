#pragma once
// Which GPU work only moves or converts data (a copy, a cast, a layout change, a concatenation,
// a clone), from the framework op that launched it or, without one, from the kernel's name: the
// one place the device-copy rule (and anything else that needs it) decides it.

#include <string_view>

namespace gpuscope::analysis {

enum class Movement : unsigned char { kNone, kCopy, kCast, kLayout, kConcat, kClone };

// What a framework op does when it launches work: aten::copy_ (kCopy), aten::_to_copy,
// aten::to and the dtype methods (kCast), aten::contiguous and a materialised reshape /
// flatten (kLayout), aten::cat / _cat / stack (kConcat), aten::clone and aten::repeat
// (kClone); kNone for every other op.
Movement MovementOfOp(std::string_view op);

// The same from a kernel's name alone, for kernels without a framework op (a trace without ops,
// a torch.compile region): PyTorch's copy kernels (direct_copy_kernel, *_copy_kernel_cuda,
// copy_device_to_device), CatArrayBatchedCopy, MIOpen's batched_transpose / transpose_* /
// *CastTensor*, cuDNN's nchwToNhwc / nhwcToNchw, and Triton pointwise kernels fused only from
// movement ops (triton_poi_fused__to_copy_1, triton_poi_fused_cat_clone_3). Runtime copy kernels
// (a memcpy done by a kernel) are not: the trace has them as copies.
Movement MovementOfKernel(std::string_view kernel);

// "copy", "cast", "layout change", "concatenation", "clone" ("" for kNone).
std::string_view MovementName(Movement m);

}  // namespace gpuscope::analysis
