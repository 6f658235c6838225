#include "analysis/work/kernel_categories.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <utility>

#include "analysis/common/name_memo.h"
#include "base/enum_names.h"
#include "base/shown_name.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

constexpr std::string_view kCategoryNames[] = {"gemm",          "attention",   "conv",      "norm",
                                               "fused",         "elementwise", "reduction", "copy",
                                               "communication", "other"};
static_assert(base::NamesEvery(kCategoryNames, KernelCategory::kOther));

constexpr std::string_view kCategoryDescriptions[] = {
    "matrix multiplications: cuBLAS/cuBLASLt, nvjet, CUTLASS, xmma, rocBLAS/hipBLASLt/Tensile "
    "(Cijk_), Composable Kernel, DeepGEMM, Triton matmul",
    "attention: flash, fmha, attn_fwd, SDPA, paged and decode attention, CK FMHA, FlashInfer",
    "convolutions: cuDNN, MIOpen, implicit-GEMM fprop/dgrad/wgrad, im2col",
    "normalization: layer, RMS, batch, group and instance norm",
    "generated fusions: Inductor/Triton triton_*, nvFuser, other fused kernels",
    "element-wise kernels: arithmetic, activations, rotary embedding, quantization",
    "reductions: sums, means, softmax, top-k, sort, scan",
    "data movement on the GPU: copy and fill kernels, casts, transposes, gathers, KV-cache writes",
    "collectives: NCCL/RCCL, DeepEP, custom all-reduce, all-to-all",
    "kernels no line of the table matches"};
static_assert(base::NamesEvery(kCategoryDescriptions, KernelCategory::kOther));

constexpr std::string_view kHeader[] = {"category", "field", "pattern", "note"};

// A rule from a line's fields; an empty string when it reads, else what is wrong.
std::string ReadRule(const std::vector<std::string_view>& f, CategoryRule* r) {
  if (!CategoryNamed(f[0], &r->category)) return "unknown category '" + std::string(f[0]) + "'";
  if (f[1] != "name" && f[1] != "op")
    return "the field is '" + std::string(f[1]) + "', not name or op";
  r->on_op = f[1] == "op";
  std::string_view p = f[2];
  r->anchored = p.starts_with('^');
  if (r->anchored) p.remove_prefix(1);
  if (p.empty()) return "an empty pattern";
  r->pattern = base::AsciiLower(p);
  r->note = std::string(f[3]);
  return "";
}

KernelCategory FirstMatch(const std::vector<CategoryRule>& rules, bool on_op,
                          std::string_view lower) {
  for (const CategoryRule& r : rules)
    if (r.on_op == on_op && r.Matches(lower)) return r.category;
  return KernelCategory::kOther;
}

}  // namespace

std::string_view CategoryName(KernelCategory c) { return base::NameOf(kCategoryNames, c, "?"); }
std::string_view CategoryDescription(KernelCategory c) {
  return base::NameOf(kCategoryDescriptions, c, "?");
}
bool CategoryNamed(std::string_view name, KernelCategory* out) {
  return base::ValueNamed(kCategoryNames, name, out);
}

KernelCategory CategoryRules::OfName(std::string_view lower_name) const {
  return FirstMatch(rules, false, lower_name);
}
KernelCategory CategoryRules::OfKernel(std::string_view name) const {
  // Cut before demangling: the whole name, copied twice per thread that categorises, cost 4x a
  // 40 MB name's size in `report` (a cut mangled name stays as written: Demangle refuses it).
  return OfName(base::AsciiLower(base::Demangle(name.substr(0, base::kMaxShownName))));
}
KernelCategory CategoryRules::OfOp(std::string_view op) const {
  return FirstMatch(rules, true, base::AsciiLower(op.substr(0, base::kMaxShownName)));
}

base::StatusOr<CategoryRules> ParseCategoryRules(std::string_view tsv) {
  CategoryRules out;
  bool header = false;
  for (size_t line_no = 1; !tsv.empty(); ++line_no) {
    std::string_view line = tsv.substr(0, tsv.find('\n'));
    tsv.remove_prefix(std::min(tsv.size(), line.size() + 1));
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields = base::SplitTabs(line);
    auto where = "line " + std::to_string(line_no) + ": ";
    if (!header) {
      if (!std::equal(fields.begin(), fields.end(), std::begin(kHeader), std::end(kHeader)))
        return base::Status::Error(where +
                                   "not the expected header (category, field, "
                                   "pattern, note; tab-separated)");
      header = true;
      continue;
    }
    if (fields.size() != std::size(kHeader))
      return base::Status::Error(where + std::to_string(fields.size()) + " fields, not " +
                                 std::to_string(std::size(kHeader)));
    if (std::string bad = ReadRule(fields, &out.rules.emplace_back()); !bad.empty())
      return base::Status::Error(where + bad);
  }
  if (!header) return base::Status::Error("no header (category, field, pattern, note)");
  return out;
}

namespace internal {
extern const std::string_view kCategoryTableTsv;  // work/categories.tsv, compiled in
}  // namespace internal

std::shared_ptr<const CategoryRules> BuiltInCategoryRules() {
  static const std::shared_ptr<const CategoryRules> rules = [] {
    auto parsed = ParseCategoryRules(internal::kCategoryTableTsv);
    // The table is compiled in and read by the tests: a failure here is a broken build.
    if (!parsed.ok()) {
      std::fprintf(stderr, "gpuscope: internal error: categories.tsv: %s\n",
                   parsed.status().message().c_str());
      std::abort();
    }
    parsed->source = "built in (categories.tsv)";
    return std::make_shared<const CategoryRules>(std::move(*parsed));
  }();
  return rules;
}

std::vector<KernelCategory> CategorizeKernels(const model::Trace& t, const CategoryRules& rules) {
  // Per distinct string id: the name's category, then (for op names) the op's.
  NameMemo of_kernel(t, [&rules](std::string_view name) { return rules.OfKernel(name); });
  NameMemo of_op(t, [&rules](std::string_view name) { return rules.OfOp(name); });
  const bool any_op_rule = std::any_of(rules.rules.begin(), rules.rules.end(),
                                       [](const CategoryRule& r) { return r.on_op; });
  std::vector<KernelCategory> out(t.kernels.size(), KernelCategory::kOther);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    KernelCategory c = of_kernel(t.kernels.name[i]);
    // No name line matched: the op that launched it, then the ops around that one.
    model::RowId call = t.kernels.launch[i];
    if (c == KernelCategory::kOther && any_op_rule && call != model::kNoRow &&
        call < t.api.size()) {
      model::RowId op = t.api.enclosing_op[call];
      for (int depth = 0; depth < 64 && op < t.cpu.size() && c == KernelCategory::kOther;
           ++depth, op = t.cpu.parent[op])
        c = of_op(t.cpu.name[op]);
    }
    out[i] = c;
  }
  return out;
}

}  // namespace gpuscope::analysis
