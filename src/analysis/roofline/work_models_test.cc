// Work models against hand-computed FLOPs and bytes, device identification, and the roofline
// over a hand-built model.

#include "analysis/work/work_models.h"

#include <gtest/gtest.h>

#include <map>

#include "analysis/common/test_model_builder.h"
#include "analysis/roofline/projection.h"
#include "analysis/roofline/roofline.h"
#include "analysis/work/device_peaks.h"
#include "model/op_args.h"

namespace gpuscope::analysis {
namespace work_models_test {  // this file's helpers, apart in a unity build
namespace {

// Stored args from JSON pieces, as an importer would write them.
std::string Args(const std::string& dims, const std::string& types,
                 const std::string& concrete = "") {
  return model::EncodeOpArgs(dims, types, concrete);
}

OpWork Work(const std::string& op, const std::string& args) {
  WorkEstimate e = EstimateWork(op, args);
  EXPECT_TRUE(e.ok) << op << ": " << e.why;
  return e.work;
}

TEST(OpArgs, EncodesMinifiedAndDecodesShapesTypesAndLists) {
  std::string s = Args("[[888, 2880], [640, 2880], [], [[2, 3], [2, 4]]]",
                       "[\"c10::BFloat16\", \"float\", \"Scalar\", \"TensorList\"]",
                       "[\"\", \"\", \"1\", \"[1, 1]\"]");
  // Whitespace between tokens goes; inside strings it stays.
  EXPECT_NE(s.find("\"Input Dims\":[[888,2880],[640,2880],[],[[2,3],[2,4]]]"), std::string::npos);
  EXPECT_NE(s.find("\"[1, 1]\""), std::string::npos);
  model::OpArgs a;
  ASSERT_TRUE(model::DecodeOpArgs(s, &a));
  ASSERT_EQ(a.shapes.size(), 4u);
  EXPECT_EQ(a.shapes[0].dims, (std::vector<int64_t>{888, 2880}));
  EXPECT_TRUE(a.shapes[2].dims.empty());
  ASSERT_EQ(a.shapes[3].list.size(), 2u);
  EXPECT_EQ(a.shapes[3].list[1], (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(a.types[0], "c10::BFloat16");
  EXPECT_EQ(a.concrete[3], "[1, 1]");
  EXPECT_EQ(model::ShapeText(a), "888x2880, 640x2880, [2x3, 2x4]");
  EXPECT_EQ(Args("", "", ""), "");
  EXPECT_FALSE(model::DecodeOpArgs("{\"Input Dims\":[[1,2]", &a));  // damaged
  ASSERT_TRUE(model::DecodeOpArgs(Args("[[1.5, 2], \"x\"]", "[]"), &a));
  EXPECT_FALSE(a.shapes[0].known);  // not integers: unknown, never a number
  EXPECT_FALSE(a.shapes[1].known);
  // A negative size (found by fuzz_kineto: "-\n 2" minified to -2) is no shape: unknown, and the
  // op is not priced below zero.
  ASSERT_TRUE(model::DecodeOpArgs(Args("[[-2, 8], [2, 8]]", "[]"), &a));
  EXPECT_FALSE(a.shapes[0].known);
  EXPECT_TRUE(a.shapes[1].known);
  EXPECT_FALSE(
      EstimateWork("aten::mm", Args("[[-128, 256], [256, 512]]", R"(["float", "float"])")).ok);
}

TEST(WorkModels, GemmFamily) {
  // mm [128, 256] x [256, 512] bf16: 2MNK, A + B + C once.
  OpWork mm =
      Work("aten::mm", Args("[[128, 256], [256, 512]]", R"(["c10::BFloat16", "c10::BFloat16"])"));
  EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 128 * 512 * 256);
  EXPECT_DOUBLE_EQ(mm.bytes, (128 * 256 + 256 * 512 + 128 * 512) * 2.0);
  EXPECT_TRUE(mm.matrix);
  EXPECT_EQ(mm.precision, Precision::kBf16);
  // addmm(bias, A, B) in fp16 adds the bias read.
  OpWork addmm =
      Work("aten::addmm", Args("[[512], [128, 256], [256, 512], [], []]",
                               R"(["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"])"));
  EXPECT_DOUBLE_EQ(addmm.flops, mm.flops);
  EXPECT_DOUBLE_EQ(addmm.bytes, mm.bytes + 512 * 2);
  EXPECT_EQ(addmm.precision, Precision::kFp16);
  // linear(x [4, 32, 256], weight [512, 256] (used transposed), bias [512]): M = 128.
  OpWork linear =
      Work("aten::linear", Args("[[4, 32, 256], [512, 256], [512]]",
                                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])"));
  EXPECT_DOUBLE_EQ(linear.flops, 2.0 * 128 * 512 * 256);
  EXPECT_DOUBLE_EQ(linear.bytes, (128 * 256 + 512 * 256 + 128 * 512 + 512) * 2.0);
  // bmm [4, 64, 32] x [4, 32, 16].
  OpWork bmm =
      Work("aten::bmm", Args("[[4, 64, 32], [4, 32, 16]]", R"(["c10::Half", "c10::Half"])"));
  EXPECT_DOUBLE_EQ(bmm.flops, 2.0 * 4 * 64 * 16 * 32);
  // Transposed operands: Input Dims are logical sizes, so mm(A, B.t()) reads as [M, K] x [K, N].
  OpWork transposed = Work("aten::mm", Args("[[128, 256], [256, 512]]", R"(["float", "float"])"));
  EXPECT_DOUBLE_EQ(transposed.flops, mm.flops);
  EXPECT_EQ(transposed.precision, Precision::kFp32);
  // Mismatched inner dimensions are refused, not guessed.
  EXPECT_FALSE(
      EstimateWork("aten::mm", Args("[[128, 256], [255, 512]]", R"(["float", "float"])")).ok);
}

TEST(WorkModels, MatmulBroadcastsBatchDimsAndVectors) {
  // [8, 1, 64, 32] x [4, 32, 16]: batch broadcasts to [8, 4].
  OpWork w = Work("aten::matmul", Args("[[8, 1, 64, 32], [4, 32, 16]]", R"(["float", "float"])"));
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 32 * 64 * 16 * 32);
  // A 1-D operand is a row: [32] x [32, 16] -> M = 1.
  OpWork v = Work("aten::matmul", Args("[[32], [32, 16]]", R"(["float", "float"])"));
  EXPECT_DOUBLE_EQ(v.flops, 2.0 * 1 * 16 * 32);
}

TEST(WorkModels, ScaledMmIsFp8WithItsScalesAndOutputType) {
  // _scaled_mm(A fp8 [256, 512], B fp8 [512, 128], scale_a, scale_b, bias, scale_result,
  // out_dtype = 15 (bf16), use_fast_accum).
  OpWork w = Work(
      "aten::_scaled_mm",
      Args(
          "[[256, 512], [512, 128], [], [], [], [], [], []]",
          R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"])",
          R"(["", "", "", "", "", "", "15", "False"])"));
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 256 * 128 * 512);
  EXPECT_DOUBLE_EQ(w.bytes, 256.0 * 512 + 512.0 * 128 + 256.0 * 128 * 2);
  EXPECT_EQ(w.precision, Precision::kFp8);
}

TEST(WorkModels, GroupedGemmAndFusedMoe) {
  // Tokens [1000, 256] routed to 8 experts [8, 256, 512]: each row meets one expert.
  OpWork g = Work("aten::_grouped_mm", Args("[[1000, 256], [8, 256, 512], [8]]",
                                            R"(["c10::BFloat16", "c10::BFloat16", "int"])"));
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 1000 * 256 * 512);
  // Fused MoE: T = 16 tokens, top-2 of 64 experts, w1 [64, 2 x 1024, 512], w2 [64, 512, 1024].
  OpWork m = Work("vllm::outplace_fused_experts",
                  Args("[[16, 512], [64, 2048, 512], [64, 512, 1024], [16, 2], [16, 2]]",
                       R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float", "int"])"));
  EXPECT_DOUBLE_EQ(m.flops, 2.0 * 32 * 2048 * 512 + 2.0 * 32 * 512 * 1024);
  // 32 routed rows touch at most 32 of the 64 experts' weights.
  EXPECT_DOUBLE_EQ(m.bytes, 2.0 * 16 * 512 * 2 + 32.0 * (2048 * 512 + 512 * 1024) * 2);
}

TEST(WorkModels, AttentionCausalAndGqa) {
  std::string bf16x3 =
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "Scalar", "Scalar"])";
  // q, k, v [2, 8, 128, 64]; SDPA's is_causal is argument 5.
  std::string dims = "[[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [], [], []]";
  OpWork full = Work("aten::scaled_dot_product_attention",
                     Args(dims, bf16x3, R"(["", "", "", "", "0.", "False"])"));
  EXPECT_DOUBLE_EQ(full.flops, 4.0 * 2 * 8 * 128 * 128 * 64);
  OpWork causal = Work("aten::scaled_dot_product_attention",
                       Args(dims, bf16x3, R"(["", "", "", "", "0.", "True"])"));
  EXPECT_DOUBLE_EQ(causal.flops, 4.0 * 2 * 8 * (128 * 129 / 2) * 64);
  // GQA: 2 key/value heads for 8 query heads: the FLOPs follow the query heads.
  OpWork gqa =
      Work("aten::_scaled_dot_product_flash_attention",
           Args("[[2, 8, 128, 64], [2, 2, 128, 64], [2, 2, 128, 64], [], []]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])",
                R"(["", "", "", "0.", "True"])"));
  EXPECT_DOUBLE_EQ(gqa.flops, causal.flops);
  // flash-attn decode ([B, L, H, D]): one query, 512 keys, causal aligned bottom-right: all seen.
  OpWork decode =
      Work("flash_attn::_flash_attn_forward",
           Args("[[1, 1, 8, 64], [1, 512, 8, 64], [1, 512, 8, 64], [], [], []]",
                R"(["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar", "Scalar"])",
                R"(["", "", "", "0.", "0.125", "True"])"));
  EXPECT_DOUBLE_EQ(decode.flops, 4.0 * 8 * 512 * 64);
  // Paged attention is listed with its reason.
  WorkEstimate paged =
      EstimateWork("vllm::unified_attention_with_output", Args("[[1, 2]]", "[\"float\"]"));
  EXPECT_FALSE(paged.ok);
  EXPECT_NE(paged.why.find("KV cache"), std::string::npos);
}

TEST(WorkModels, ConvolutionFromStridePaddingDilation) {
  // conv2d(x [1, 3, 224, 224], w [64, 3, 7, 7], bias [64], stride 2, padding 3): out 112 x 112.
  OpWork w = Work(
      "aten::conv2d",
      Args("[[1, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], []]",
           R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"])",
           R"(["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "1"])"));
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 64 * 112 * 112 * 3 * 49);
  EXPECT_EQ(w.precision, Precision::kTf32);  // fp32 convolutions run in TF32 by default
  // Without stride/padding the output size is unknown: refused.
  EXPECT_FALSE(EstimateWork("aten::conv2d",
                            Args("[[1, 3, 224, 224], [64, 3, 7, 7]]", R"(["float", "float"])"))
                   .ok);
}

TEST(WorkModels, MemoryBoundFamilies) {
  OpWork ln =
      Work("aten::native_layer_norm",
           Args("[[8, 1024], [], [1024], [1024], []]",
                R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar"])"));
  EXPECT_DOUBLE_EQ(ln.bytes, 2.0 * 8192 * 2 + 2 * 1024 * 2);
  EXPECT_FALSE(ln.matrix);
  // Broadcasting add: [4, 1, 8] + [1, 5, 8] -> [4, 5, 8].
  OpWork add =
      Work("aten::add", Args("[[4, 1, 8], [1, 5, 8], []]", R"(["float", "float", "Scalar"])"));
  EXPECT_DOUBLE_EQ(add.bytes, (32 + 40) * 4.0 + 160 * 4.0);
  EXPECT_DOUBLE_EQ(add.flops, 160);
  // clamp_min.out(x, 0, out): what relu_ calls; out is written, not read.
  OpWork relu =
      Work("aten::clamp_min", Args("[[32, 64], [], [32, 64]]", R"(["float", "Int", "float"])"));
  EXPECT_DOUBLE_EQ(relu.bytes, 2 * 2048 * 4.0);
  // copy_(self bf16 [100], src fp32 [100]): reads src, writes self.
  OpWork copy =
      Work("aten::copy_", Args("[[100], [100], []]", R"(["c10::BFloat16", "float", "Scalar"])"));
  EXPECT_DOUBLE_EQ(copy.bytes, 100 * 4.0 + 100 * 2.0);
  EXPECT_DOUBLE_EQ(copy.flops, 0);
  OpWork triton =
      Work("triton_poi_fused_add_0",
           Args("[[1024], [1024], [], []]", R"(["c10::Half", "c10::Half", "Scalar", "Scalar"])"));
  EXPECT_DOUBLE_EQ(triton.bytes, 2 * 1024 * 2.0);
  // A gather: 32 rows of a [1000, 64] table (xnumel = 32 x 64 elements) touch 2,048 elements.
  OpWork gather = Work(
      "triton_poi_fused_embedding_0",
      Args("[[1000, 64], [32, 64], []]", R"(["float", "float", "Scalar"])", R"(["", "", "2048"])"));
  EXPECT_DOUBLE_EQ(gather.bytes, 2 * 2048 * 4.0);
}

TEST(WorkModels, SaysWhyWhenItCannot) {
  EXPECT_EQ(FindWorkModel("aten::nonzero"), nullptr);
  EXPECT_NE(EstimateWork("aten::nonzero", "").why.find("no work model"), std::string::npos);
  EXPECT_NE(EstimateWork("aten::mm", "").why.find("record_shapes"), std::string::npos);
  EXPECT_FALSE(
      EstimateWork("aten::mm", Args("[[128, 256], [256, 512]]", R"(["Weird", "float"])")).ok);
}

TEST(WorkModels, CacheAnswersAsEstimateWorkPerNameAndArguments) {
  test_models::Builder b;
  const std::string small = Args("[[128, 256], [256, 512]]", R"(["float", "float"])");
  const std::string large = Args("[[1024, 256], [256, 512]]", R"(["float", "float"])");
  b.Op("aten::mm", 0, 10, small);
  b.Op("aten::mm", 20, 10, large);
  b.Op("aten::mm", 40, 10, small);   // the first call again: its entry
  b.Op("aten::bmm", 60, 10, small);  // same arguments, another op: another entry
  b.Op("aten::mm", 80, 10);          // no shapes recorded
  const model::Trace& t = b.raw();
  OpWorkCache cache(t);
  for (model::RowId r = 0; r < t.cpu.size(); ++r) {
    const WorkEstimate want = EstimateWork(t.str(t.cpu.name[r]), t.str(t.cpu.args[r]));
    const WorkEstimate& got = cache.Of(r);
    EXPECT_EQ(got.ok, want.ok) << r;
    EXPECT_EQ(got.work.bytes, want.work.bytes) << r;
    EXPECT_EQ(got.work.flops, want.work.flops) << r;
    EXPECT_EQ(got.why, want.why) << r;
  }
  EXPECT_EQ(&cache.Of(0), &cache.Of(2));
  EXPECT_NE(cache.Of(0).work.flops, cache.Of(1).work.flops);
  EXPECT_FALSE(cache.Of(4).ok);
}

model::Device Dev(std::string name, model::Vendor v, int cus, double gb) {
  model::Device d;
  d.name = std::move(name), d.vendor = v, d.compute_units = cus;
  d.total_memory = static_cast<int64_t>(gb * 1e9);
  return d;
}

TEST(DevicePeaks, IdentifiesByNameThenByComputeUnitsAndMemory) {
  using model::Vendor;
  auto key = [](const model::Device& d) {
    const DevicePeaks* p = IdentifyDevice(d).peaks;
    return p ? std::string(p->key) : std::string("?");
  };
  EXPECT_EQ(key(Dev("AMD Instinct MI300X", Vendor::kAmd, 304, 206)), "MI300X");
  EXPECT_EQ(key(Dev("", Vendor::kAmd, 304, 206)), "MI300X");  // unnamed: by CUs and memory
  EXPECT_EQ(key(Dev("", Vendor::kAmd, 304, 274)), "MI325X");  // same CUs, 256 GB
  EXPECT_EQ(key(Dev("AMD Instinct MI250X/MI250", Vendor::kAmd, 110, 68)), "MI250X");
  EXPECT_EQ(key(Dev("AMD Instinct MI250X/MI250", Vendor::kAmd, 104, 68)), "MI250");
  EXPECT_EQ(key(Dev("AMD Radeon Graphics", Vendor::kAmd, 104, 68.7)), "?");  // MI210 or MI250
  EXPECT_NE(
      IdentifyDevice(Dev("AMD Radeon Graphics", Vendor::kAmd, 104, 68.7)).how.find("ambiguous"),
      std::string::npos);
  EXPECT_EQ(key(Dev("NVIDIA H100 80GB HBM3", Vendor::kNvidia, 132, 85)), "H100-SXM");
  EXPECT_EQ(key(Dev("NVIDIA H100", Vendor::kNvidia, 132, 102)), "H100-96GB");
  EXPECT_EQ(key(Dev("NVIDIA H100 PCIe", Vendor::kNvidia, 114, 85)), "H100-PCIe");
  EXPECT_EQ(key(Dev("NVIDIA A100-PG509-200", Vendor::kNvidia, 108, 42)), "A100-SXM-40GB");
  EXPECT_EQ(key(Dev("NVIDIA B200", Vendor::kNvidia, 148, 191)), "B200");
  EXPECT_EQ(key(Dev("AMD Instinct MI350X (gfx950)", Vendor::kAmd, 256, 0)), "MI350X");
  ASSERT_NE(FindDevice("mi355x"), nullptr);
  EXPECT_EQ(FindDevice("mi355x")->key, "MI355X");
  EXPECT_EQ(FindDevice("TPU v5"), nullptr);
}

TEST(Roofline, ChargesKernelsToTheInnermostModelledOp) {
  using test_models::us;
  test_models::Builder b;
  model::Trace& raw = b.raw();
  model::Device d;
  d.id = 0, d.name = "AMD Instinct MI300X", d.vendor = model::Vendor::kAmd, d.compute_units = 304;
  raw.devices.push_back(d);
  std::string mm =
      Args("[[512], [4096, 4096], [4096, 512], [], []]",
           R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  for (int i = 0; i < 3; ++i) {
    int64_t t0 = i * 1000 * us;
    b.Op("aten::linear", t0, 100 * us);  // no args: the inner addmm is the modelled call
    b.Op("aten::addmm", t0 + 10 * us, 80 * us, mm);
    b.Launch("gemm_kernel", t0 + 20 * us, 10 * us, t0 + 40 * us, 100 * us);
    b.Op("aten::nonzero", t0 + 200 * us, 50 * us);
    b.Launch("nonzero_kernel", t0 + 210 * us, 5 * us, t0 + 300 * us, 10 * us);
  }
  b.Kernel("orphan", 5000 * us, 7 * us);
  const model::Trace& t = b.Link();
  RooflineReport r = ComputeRoofline(t, {}, nullptr);
  ASSERT_NE(r.device.peaks, nullptr);
  EXPECT_EQ(r.device.peaks->key, "MI300X");
  ASSERT_EQ(r.ops.size(), 1u);
  const RooflineOp& op = r.ops[0];
  EXPECT_EQ(op.op, "aten::addmm");
  EXPECT_EQ(op.calls, 3u);
  EXPECT_EQ(op.gpu_ns, 300 * us);
  double flops = 2.0 * 4096 * 512 * 4096;
  EXPECT_DOUBLE_EQ(op.flops, 3 * flops);
  EXPECT_EQ(op.bound, "compute");
  // At 1307.4 TFLOP/s a call takes flops / 1307.4e3 ns; it took 100 us.
  EXPECT_NEAR(op.percent_of_bound, 100.0 * (flops / 1307.4e3) / (100 * us), 1e-9);
  EXPECT_NEAR(op.tflops, flops / (100.0 * us) / 1e3, 1e-9);
  ASSERT_EQ(r.unmodelled.size(), 2u);
  EXPECT_EQ(r.unmodelled[0].op, "aten::nonzero");
  EXPECT_EQ(r.unmodelled[0].calls, 3u);
  EXPECT_EQ(r.unmodelled[0].gpu_ns, 30 * us);
  EXPECT_EQ(r.unmodelled[1].op, "(no CPU op)");
  EXPECT_EQ(r.kernel_ns, 337 * us);
  EXPECT_EQ(r.modelled_ns, 300 * us);
  // --device overrides; an unknown device leaves percentages out.
  RooflineOptions h100;
  h100.device = "H100-SXM";
  EXPECT_NEAR(ComputeRoofline(t, h100, nullptr).ops[0].percent_of_bound,
              100.0 * (flops / 989.4e3) / (100 * us), 1e-9);
  RooflineOptions none;
  raw.devices.clear();
  RooflineReport unknown = ComputeRoofline(t, none, nullptr);
  EXPECT_EQ(unknown.device.peaks, nullptr);
  EXPECT_LT(unknown.ops[0].percent_of_bound, 0);
}

TEST(Roofline, ProjectsKernelsOntoAnotherDevice) {
  // On an MI300X: three GEMM calls (100 us, compute-bound in bf16), a nonzero kernel without a
  // model (10 us) and a 1 us kernel. On an H100 SXM the GEMMs take 1307.4 / 989.4 as long (bf16
  // peaks, same share of the roof), the unmodelled kernel 5.3 / 3.35 as long (HBM bandwidth),
  // the tiny one stays (fixed cost); onto the same device nothing changes.
  using test_models::us;
  test_models::Builder b;
  model::Device d;
  d.id = 0, d.name = "AMD Instinct MI300X", d.vendor = model::Vendor::kAmd, d.compute_units = 304;
  b.raw().devices.push_back(d);
  std::string mm =
      Args("[[512], [4096, 4096], [4096, 512], [], []]",
           R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  for (int i = 0; i < 3; ++i) {
    int64_t t0 = i * 1000 * us;
    b.Op("aten::addmm", t0 + 10 * us, 80 * us, mm);
    b.Launch("gemm_kernel", t0 + 20 * us, 10 * us, t0 + 40 * us, 100 * us);
  }
  b.Launch("nonzero_kernel", 4000 * us, 5 * us, 4010 * us, 10 * us);
  b.Launch("tiny_kernel", 4100 * us, 5 * us, 4110 * us, 1 * us);
  const model::Trace& t = b.Link();
  DeviceProjection p = ProjectOntoDevice(t, nullptr, "H100-SXM", 0, 10000 * us);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.from->key, "MI300X");
  EXPECT_EQ(p.modelled, 3u);
  EXPECT_EQ(p.unmodelled, 2u);
  ASSERT_EQ(p.kernel_dur.size(), 5u);
  std::map<std::string, int64_t> got;
  for (auto [row, ns] : p.kernel_dur) got[std::string(t.str(t.kernels.name[row]))] = ns;
  EXPECT_NEAR(static_cast<double>(got["gemm_kernel"]), 100.0 * us * 1307.4 / 989.4, 1);
  EXPECT_NEAR(static_cast<double>(got["nonzero_kernel"]), 10.0 * us * 5.3 / 3.35, 1);
  EXPECT_EQ(got["tiny_kernel"], 1 * us);
  for (auto [row, ns] : ProjectOntoDevice(t, nullptr, "MI300X", 0, 10000 * us).kernel_dur)
    EXPECT_EQ(ns, t.kernels.dur_ns[row]);
  EXPECT_FALSE(ProjectOntoDevice(t, nullptr, "TPUv5", 0, 10000 * us).error.empty());
}

}  // namespace
}  // namespace work_models_test
}  // namespace gpuscope::analysis
