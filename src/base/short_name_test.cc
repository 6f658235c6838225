#include "base/short_name.h"

#include <gtest/gtest.h>

#include <set>

#include "base/text.h"

namespace gpuscope::base {
namespace short_name_test {  // this file's helpers, apart in a unity build
namespace {

const std::string kDgrad =
    "void cudnn::detail::dgrad_engine<float, 128, 6, 8, 3, 3, 5, false>(int, int, int, float "
    "const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, "
    "unsigned long long, int, float, int, int, int)";
const std::string kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, "
    "3>)";

TEST(ShortenName, WholeWhenItFits) {
  EXPECT_EQ(ShortenName(kDgrad, 400), kDgrad);
  EXPECT_EQ(ShortenName("aten::conv2d", 12), "aten::conv2d");
}

TEST(ShortenName, DropsVoidThenFoldsParametersThenTemplates) {
  EXPECT_EQ(ShortenName(kDgrad, 80),
            "cudnn::detail::dgrad_engine<float, 128, 6, 8, 3, 3, 5, false>(\u2026)");
  EXPECT_EQ(ShortenName(kDgrad, 40), "cudnn::detail::dgrad_engine<\u2026>(\u2026)");
  // Nested template arguments fold before the outer list does.
  EXPECT_EQ(ShortenName(kAdd, 100),
            "at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<\u2026>, "
            "at::detail::Array<\u2026> >(\u2026)");
  EXPECT_EQ(ShortenName(kAdd, 50), "at::native::vectorized_elementwise_kernel<\u2026>(\u2026)");
}

TEST(ShortenName, KeepsTheBaseNameWholeBeforeCutting) {
  // 33 columns of base name: the lists after it are cut, never the base.
  std::string s = ShortenName(kDgrad, 30);
  EXPECT_EQ(s, "cudnn::detail::dgrad_engine<\u2026");
  EXPECT_LE(DisplayWidth(s), 30u);
  EXPECT_EQ(BaseName(kDgrad), "cudnn::detail::dgrad_engine");
  // "(anonymous namespace)" belongs to the base name; a base longer than the width loses its
  // middle namespaces, never the kernel's own name.
  std::string anon =
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<float, "
      "unsigned int, 4, 128, 1>(float*, at::native::(anonymous "
      "namespace)::CatArrInputTensorMetadata)";
  EXPECT_EQ(BaseName(anon),
            "at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig");
  EXPECT_EQ(ShortenName(anon, 50), "at::\u2026::CatArrayBatchedCopy_aligned16_contig");
  std::string own = ShortenName(anon, 30);
  EXPECT_EQ(own.rfind("\u2026::CatArrayBatchedCopy_align", 0), 0u) << own;
  EXPECT_EQ(DisplayWidth(own), 30u) << own;
  for (size_t width : {3u, 8u, 20u, 44u, 60u})
    EXPECT_LE(DisplayWidth(ShortenName(anon, width)), width);
  // A name without namespaces keeps its head (Tensile's names say the most first).
  EXPECT_EQ(ShortenName(std::string(30, 'a') + std::string(30, 'b'), 40),
            std::string(30, 'a') + std::string(9, 'b') + "\u2026");
}

TEST(ShortenName, ArrowsInParametersAreText) {
  EXPECT_EQ(ShortenName("Memcpy HtoD (Pageable -> Device)", 16), "Memcpy HtoD (\u2026)");
}

TEST(ShortenNamesDistinct, KeepsDifferentNamesDifferent) {
  std::vector<std::string> names = {
      "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>("
      "Params)",
      "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_tn_align8>"
      "(Params)",
      "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x1_tn_align8>"
      "(Params)",
      "elementwise_kernel", "elementwise_kernel"};
  for (size_t width : {24u, 30u, 40u, 60u}) {
    auto out = ShortenNamesDistinct(names, width);
    ASSERT_EQ(out.size(), names.size());
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_LE(DisplayWidth(out[i]), width) << out[i];
      for (size_t j = i + 1; j < 3; ++j) EXPECT_NE(out[i], out[j]) << width;
    }
    EXPECT_EQ(out[3], out[4]);  // equal names stay equal
  }
  // At 60 columns the differing tile shapes are what shows, after the whole base name.
  auto out = ShortenNamesDistinct(names, 60);
  EXPECT_NE(out[0].find("64x64"), std::string::npos) << out[0];
  EXPECT_NE(out[1].find("128x128"), std::string::npos) << out[1];
  EXPECT_EQ(out[0].rfind("cutlass::Kernel2<", 0), 0u) << out[0];
}

TEST(ShortenNamesDistinct, ShowsTheBaseNameAndTheFunctorThatDiffers) {
  std::vector<std::string> names;
  for (const char* f : {"AddFunctor", "MulFunctor", "CUDAFunctor_add"}) {
    std::string n = kAdd;
    for (size_t p = n.find("AddFunctor"); p != std::string::npos; p = n.find("AddFunctor", p))
      n.replace(p, 10, f), p += std::string(f).size();
    names.push_back(n);
  }
  auto out = ShortenNamesDistinct(names, 60);
  std::set<std::string> seen(out.begin(), out.end());
  EXPECT_EQ(seen.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].rfind("at::native::vectorized_elementwise_kernel<", 0), 0u) << out[i];
    EXPECT_LE(DisplayWidth(out[i]), 60u) << out[i];
  }
  EXPECT_NE(out[1].find("MulFunctor"), std::string::npos) << out[1];
  // A base name (41 columns) that leaves no room beside it loses its namespaces, never its own
  // name, and the functor still shows (stats at 100 columns gives the name 44).
  out = ShortenNamesDistinct(names, 44);
  seen = std::set<std::string>(out.begin(), out.end());
  EXPECT_EQ(seen.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NE(out[i].find("::vectorized_elementwise_kernel<"), std::string::npos) << out[i];
    EXPECT_LE(DisplayWidth(out[i]), 44u) << out[i];
  }
  EXPECT_NE(out[1].find("MulFunc"), std::string::npos) << out[1];
}

TEST(FoldNamesInText, FoldsNamesNotProse) {
  std::string line = kAdd + ": 3 launches (9% of the window)";
  EXPECT_EQ(FoldNamesInText(line, 400), line);
  EXPECT_EQ(FoldNamesInText(line, 80),
            "at::native::vectorized_elementwise_kernel<\u2026>(\u2026): 3 launches (9% of the "
            "window)");
  // Never cut: a line that folds to more than the width is left to wrapping.
  std::string folded = FoldNamesInText(line, 20);
  EXPECT_NE(folded.find("vectorized_elementwise_kernel<\u2026>(\u2026): 3 launches"),
            std::string::npos);
}

}  // namespace
}  // namespace short_name_test
}  // namespace gpuscope::base
