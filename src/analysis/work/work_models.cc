#include "analysis/work/work_models.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/work/model_args.h"

namespace gpuscope::analysis {

using namespace work_internal;  // NOLINT: the family estimators the table lists

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

model::RowId OpAround(const model::Trace& t, model::RowId row) {
  for (int guard = 0; row != model::kNoRow && guard < 256; ++guard, row = t.cpu.parent[row]) {
    if (t.cpu.kind[row] == model::CpuRangeKind::kOp &&
        !t.str(t.cpu.name[row]).starts_with("ProfilerStep#"))
      return row;
  }
  return model::kNoRow;
}

model::RowId ModelledOpAround(const model::Trace& t, model::RowId row) {
  for (int guard = 0; row != model::kNoRow && guard < 256; ++guard, row = t.cpu.parent[row]) {
    if (t.cpu.kind[row] == model::CpuRangeKind::kOp && FindWorkModel(t.str(t.cpu.name[row])))
      return row;
  }
  return model::kNoRow;
}

const WorkEstimate& OpWorkCache::Of(model::RowId row) {
  const uint64_t key = (static_cast<uint64_t>(t_.cpu.name[row]) << 32) | t_.cpu.args[row];
  auto [it, fresh] = cache_.try_emplace(key);
  if (fresh) it->second = EstimateWork(t_.str(t_.cpu.name[row]), t_.str(t_.cpu.args[row]));
  return it->second;
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
