#include "analysis/common/data_movement.h"

#include <array>
#include <cctype>
#include <utility>

#include "base/enum_names.h"

namespace gpuscope::analysis {

namespace {

bool Has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The op names a Triton kernel of torch.compile was fused from that move data only (its name:
// triton_<kind>_fused_<op>_<op>..._<n>, ops joined with '_', so "_to_copy" reads "to", "copy").
bool MovementWord(std::string_view w) {
  static constexpr std::array<std::string_view, 22> kWords = {
      "to",    "copy",    "clone", "cat",       "stack",      "view",   "unsafe",  "permute",
      "as",    "strided", "slice", "unsqueeze", "squeeze",    "expand", "reshape", "select",
      "split", "unbind",  "t",     "transpose", "contiguous", "alias"};
  for (std::string_view k : kWords) {
    if (w == k) return true;
  }
  return false;
}

Movement TritonMovement(std::string_view name) {
  static constexpr std::string_view kPrefix = "triton_poi_fused_";
  if (!name.starts_with(kPrefix)) return Movement::kNone;
  std::string_view ops = name.substr(kPrefix.size());
  bool any = false, cast = false, concat = false, layout = false, clone = false;
  size_t i = 0;
  while (i < ops.size()) {
    size_t j = ops.find('_', i);
    if (j == std::string_view::npos) j = ops.size();
    std::string_view w = ops.substr(i, j - i);
    i = j + 1;
    if (w.empty()) continue;
    // The trailing number (the kernel's index in its graph) ends the op list.
    if (std::isdigit(static_cast<unsigned char>(w[0])) && j == ops.size()) break;
    if (!MovementWord(w)) return Movement::kNone;
    any = true;
    cast |= w == "to";
    concat |= w == "cat" || w == "stack";
    layout |= w == "permute" || w == "transpose" || w == "t";
    clone |= w == "clone";
  }
  if (!any) return Movement::kNone;
  return cast     ? Movement::kCast
         : concat ? Movement::kConcat
         : layout ? Movement::kLayout
         : clone  ? Movement::kClone
                  : Movement::kCopy;
}

}  // namespace

Movement MovementOfOp(std::string_view op) {
  static constexpr std::array<std::pair<std::string_view, Movement>, 15> kOps = {{
      {"aten::copy_", Movement::kCopy},
      {"aten::_to_copy", Movement::kCast},
      {"aten::to", Movement::kCast},
      {"aten::type_as", Movement::kCast},
      {"aten::float", Movement::kCast},
      {"aten::half", Movement::kCast},
      {"aten::bfloat16", Movement::kCast},
      {"aten::contiguous", Movement::kLayout},
      {"aten::reshape", Movement::kLayout},
      {"aten::flatten", Movement::kLayout},
      {"aten::cat", Movement::kConcat},
      {"aten::_cat", Movement::kConcat},
      {"aten::stack", Movement::kConcat},
      {"aten::clone", Movement::kClone},
      {"aten::repeat", Movement::kClone},
  }};
  for (const auto& [name, m] : kOps) {
    if (op == name) return m;
  }
  return Movement::kNone;
}

Movement MovementOfKernel(std::string_view k) {
  if (Has(k, "CatArrayBatchedCopy")) return Movement::kConcat;
  if (Has(k, "CastTensor") || Has(k, "tofloat32_copy_kernel") || Has(k, "float16_copy_kernel") ||
      Has(k, "float8_copy_kernel"))
    return Movement::kCast;
  if (k.starts_with("batched_transpose") || k.starts_with("transpose_NCHW") ||
      k.starts_with("transpose_CNHW") || Has(k, "nchwToNhwc") || Has(k, "nhwcToNchw"))
    return Movement::kLayout;
  if (Has(k, "direct_copy_kernel") || Has(k, "copy_device_to_device")) return Movement::kCopy;
  return TritonMovement(k);
}

namespace {
constexpr std::string_view kMovementNames[] = {
    "", "copy", "cast", "layout change", "concatenation", "clone"};
static_assert(base::NamesEvery(kMovementNames, Movement::kClone));
}  // namespace

std::string_view MovementName(Movement m) { return base::NameOf(kMovementNames, m, ""); }

}  // namespace gpuscope::analysis
