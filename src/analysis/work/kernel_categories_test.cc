#include "analysis/work/kernel_categories.h"

#include <gtest/gtest.h>

#include "analysis/common/test_model_builder.h"
#include "base/shown_name.h"

namespace gpuscope::analysis {
namespace kernel_categories_test {  // this file's helpers, apart in a unity build
namespace {

using test_models::Builder;
using test_models::us;

KernelCategory Of(std::string_view name) { return BuiltInCategoryRules()->OfKernel(name); }

TEST(KernelCategories, BuiltInTableReadsAndNamesEveryCategory) {
  auto rules = BuiltInCategoryRules();
  ASSERT_GT(rules->rules.size(), 50u);
  bool seen[kCategoryCount] = {};
  for (const auto& r : rules->rules) seen[static_cast<size_t>(r.category)] = true;
  // Every category but "other" (what no line matches) has lines.
  for (size_t c = 0; c + 1 < kCategoryCount; ++c)
    EXPECT_TRUE(seen[c]) << CategoryName(static_cast<KernelCategory>(c));
  KernelCategory c;
  EXPECT_TRUE(CategoryNamed("communication", &c));
  EXPECT_EQ(c, KernelCategory::kCommunication);
  EXPECT_FALSE(CategoryNamed("matmul", &c));
}

// Kernel names of both vendors, as the samples spell them.
TEST(KernelCategories, NamesOfBothVendors) {
  EXPECT_EQ(Of("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_cublas"),
            KernelCategory::kGemm);
  EXPECT_EQ(Of("nvjet_tst_128x64_64x8_2x1_v_bz_coopA_TNT"), KernelCategory::kGemm);
  EXPECT_EQ(Of("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x256_MI16x16x1"),
            KernelCategory::kGemm);
  EXPECT_EQ(Of("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"), KernelCategory::kGemm);
  EXPECT_EQ(Of("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(Params)"),
            KernelCategory::kAttention);
  EXPECT_EQ(Of("void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16>(int)"),
            KernelCategory::kAttention);
  EXPECT_EQ(Of("kernel_unified_attention_3d"), KernelCategory::kAttention);
  EXPECT_EQ(Of("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32"), KernelCategory::kConv);
  EXPECT_EQ(Of("sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc"),
            KernelCategory::kConv);
  // Mangled (demangled first): CK's RMSNorm; aiter's fused add + RMSNorm + quant.
  EXPECT_EQ(Of("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256EEEvPT0_"),
            KernelCategory::kNorm);
  EXPECT_EQ(Of("void at::native::batch_norm_collect_statistics_kernel<float>(int)"),
            KernelCategory::kNorm);
  EXPECT_EQ(Of("triton_poi_fused__to_copy_add_mul_3"), KernelCategory::kFused);
  EXPECT_EQ(Of("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(int)"),
            KernelCategory::kReduction);
  EXPECT_EQ(Of("void at::native::softmax_warp_forward<float, float, float, 10, false>(int)"),
            KernelCategory::kReduction);
  EXPECT_EQ(Of("void at::native::elementwise_kernel<128, 2, direct_copy_kernel_cuda>(int)"),
            KernelCategory::kCopy);
  EXPECT_EQ(Of("__amd_rocclr_fillBufferAligned"), KernelCategory::kCopy);
  EXPECT_EQ(Of("void at::native::vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>(int)"),
            KernelCategory::kElementwise);
  EXPECT_EQ(Of("ncclDevKernel_Generic_2(ncclDevKernelArgsStorage<4096ul>)"),
            KernelCategory::kCommunication);
  EXPECT_EQ(Of("void vllm::cross_device_reduce_1stage<__hip_bfloat16, 8>(int)"),
            KernelCategory::kCommunication);
  // "convert" holds "conv": the copy line before the conv lines decides.
  EXPECT_EQ(Of("void convert_fp32_to_bf16(float const*)"), KernelCategory::kCopy);
  EXPECT_EQ(Of("my_solver_kernel"), KernelCategory::kOther);
}

TEST(KernelCategories, ParseErrorsNameTheLine) {
  EXPECT_FALSE(ParseCategoryRules("").ok());
  EXPECT_FALSE(ParseCategoryRules("category\tfield\tpattern\n").ok());  // header short
  auto bad = ParseCategoryRules("# c\ncategory\tfield\tpattern\tnote\nmatmul\tname\tmm\tx\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 3"), std::string::npos);
  EXPECT_NE(bad.status().message().find("matmul"), std::string::npos);
  EXPECT_FALSE(ParseCategoryRules("category\tfield\tpattern\tnote\ngemm\tgrid\tmm\tx\n").ok());
  EXPECT_FALSE(ParseCategoryRules("category\tfield\tpattern\tnote\ngemm\tname\t^\tx\n").ok());
  EXPECT_FALSE(ParseCategoryRules("category\tfield\tpattern\tnote\ngemm\tname\tmm\n").ok());
  auto ok = ParseCategoryRules("category\tfield\tpattern\tnote\r\ngemm\tname\t^MyMM\tx\r\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->rules.size(), 1u);
  EXPECT_TRUE(ok->rules[0].anchored);
  EXPECT_EQ(ok->rules[0].pattern, "mymm");
  EXPECT_EQ(ok->OfName("mymm_kernel"), KernelCategory::kGemm);
  EXPECT_EQ(ok->OfName("a_mymm_kernel"), KernelCategory::kOther);
}

// A kernel no name line matches takes its launching op's category (or an op around it); one a
// name line matches keeps its own whatever the op.
TEST(KernelCategories, LaunchingOpDecidesWhenTheNameSaysNothing) {
  Builder b;
  b.Op("aten::linear", 0, 100 * us);
  b.Op("aten::mm", 10 * us, 50 * us);
  b.Launch("my_custom_kernel_v2", 20 * us, 5 * us, 30 * us, 10 * us);
  b.Launch("void at::native::vectorized_elementwise_kernel<4>(int)", 30 * us, 5 * us, 45 * us,
           5 * us);
  b.Op("my_module.forward", 200 * us, 50 * us);
  b.Launch("my_custom_kernel_v2", 210 * us, 5 * us, 220 * us, 10 * us);
  b.Kernel("unlaunched_kernel", 300 * us, 1 * us);
  const model::Trace& t = b.Link();
  std::vector<KernelCategory> c = CategorizeKernels(t, *BuiltInCategoryRules());
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], KernelCategory::kGemm);         // under aten::mm
  EXPECT_EQ(c[1], KernelCategory::kElementwise);  // its name decides
  EXPECT_EQ(c[2], KernelCategory::kOther);        // an op no line knows
  EXPECT_EQ(c[3], KernelCategory::kOther);        // no launch
  // Without op lines, the name alone.
  auto names_only = ParseCategoryRules("category\tfield\tpattern\tnote\ngemm\tname\tcustom\tx\n");
  ASSERT_TRUE(names_only.ok());
  c = CategorizeKernels(t, *names_only);
  EXPECT_EQ(c[0], KernelCategory::kGemm);
  EXPECT_EQ(c[1], KernelCategory::kOther);
}

TEST(KernelCategories, ANameLongerThanAnyShownOneIsJudgedByItsShownPart) {
  // invalid.name_length's names (crafted traces): the first 64 KiB decide, as they are shown.
  const std::string filler(base::kMaxShownName, 'x');
  Builder b;
  b.Kernel("gemm_" + filler, 0, 1 * us);
  b.Kernel(filler + "gemm", 10 * us, 1 * us);
  b.Kernel(filler.substr(4) + "gemm", 20 * us, 1 * us);  // its last byte is the 64 KiB'th
  std::vector<KernelCategory> c = CategorizeKernels(b.Link(), *BuiltInCategoryRules());
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], KernelCategory::kGemm);
  EXPECT_EQ(c[1], KernelCategory::kOther);  // its "gemm" lies past the shown part
  EXPECT_EQ(c[2], KernelCategory::kGemm);
}

}  // namespace
}  // namespace kernel_categories_test
}  // namespace gpuscope::analysis
