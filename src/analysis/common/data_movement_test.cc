// Which ops and kernels only move data (analysis/common/data_movement.h): the names real traces
// carry, and the names that must not count (work fused with a movement, runtime copies).

#include "analysis/common/data_movement.h"

#include <gtest/gtest.h>

namespace gpuscope::analysis {
namespace data_movement_test {  // this file's helpers, apart in a unity build
namespace {

TEST(DataMovement, OpsSayTheirKind) {
  EXPECT_EQ(MovementOfOp("aten::copy_"), Movement::kCopy);
  EXPECT_EQ(MovementOfOp("aten::to"), Movement::kCast);
  EXPECT_EQ(MovementOfOp("aten::_to_copy"), Movement::kCast);
  EXPECT_EQ(MovementOfOp("aten::contiguous"), Movement::kLayout);
  EXPECT_EQ(MovementOfOp("aten::cat"), Movement::kConcat);
  EXPECT_EQ(MovementOfOp("aten::clone"), Movement::kClone);
  for (const char* op : {"aten::mm", "aten::add", "aten::copy", "aten::index_put_", "to", ""})
    EXPECT_EQ(MovementOfOp(op), Movement::kNone) << op;
}

TEST(DataMovement, KernelNamesFromRealTraces) {
  EXPECT_EQ(MovementOfKernel("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_"
                             "impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIterator"
                             "Base&)::{lambda()#3}>"),
            Movement::kCopy);
  EXPECT_EQ(MovementOfKernel("void at::native::vectorized_elementwise_kernel<4, at::native::"
                             "bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)"),
            Movement::kCast);
  EXPECT_EQ(MovementOfKernel("void at::native::vectorized_elementwise_kernel<4, at::native::"
                             "bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)"),
            Movement::kCast);
  EXPECT_EQ(MovementOfKernel("SubTensorOpWithCastTensor1d"), Movement::kCast);
  EXPECT_EQ(MovementOfKernel("batched_transpose_16x32_half"), Movement::kLayout);
  EXPECT_EQ(MovementOfKernel("transpose_CNHW2NCHW_V2_2D_WG_off64"), Movement::kLayout);
  EXPECT_EQ(MovementOfKernel("void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<"
                             "at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int>"),
            Movement::kConcat);
  EXPECT_EQ(MovementOfKernel("void at::native::unrolled_elementwise_kernel<at::native::copy_"
                             "device_to_device(at::TensorIterator&, bool, bool)"),
            Movement::kCopy);
}

TEST(DataMovement, TritonKernelsCountOnlyWhenFusedFromMovementAlone) {
  EXPECT_EQ(MovementOfKernel("triton_poi_fused__to_copy_1"), Movement::kCast);
  EXPECT_EQ(MovementOfKernel("triton_poi_fused_cat_clone_3"), Movement::kConcat);
  EXPECT_EQ(MovementOfKernel("triton_poi_fused_clone_permute_12"), Movement::kLayout);
  EXPECT_EQ(MovementOfKernel("triton_poi_fused__unsafe_view_clone_7"), Movement::kClone);
  // Fused with work, a reduction, or a name that only looks alike: not movement.
  for (const char* k :
       {"triton_poi_fused_addmm_cat_gelu_view_25",
        "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_9",
        "triton_poi_fused__to_copy_add_cat_div_empty_like_20", "triton_poi_fused_", "gemm_kernel",
        "ncclDevKernel_AllReduce_Sum_bf16", "__amd_rocclr_copyBuffer", "_copy_page_indices_kernel"})
    EXPECT_EQ(MovementOfKernel(k), Movement::kNone) << k;
}

}  // namespace
}  // namespace data_movement_test
}  // namespace gpuscope::analysis
