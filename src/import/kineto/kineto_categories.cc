#include "import/kineto/kineto_categories.h"

#include <string>
#include <utility>

#include "format/chrome_trace.h"

namespace gpuscope::import::kineto::events {

using model::MemopKind;
using model::MemoryKind;

namespace {

using Named = std::pair<std::string_view, Category>;
namespace ct = format::chrome_trace;

// Kineto's categories, the commonest first; other backends' runtime and driver categories; and
// the rows gpuscope's own export writes: GPU ranges that are neither annotations nor syncs, and
// the iterations and annotations it derived (not source events: skipped on reading).
constexpr Named kCategories[] = {
    {"kernel", Category::kKernel},
    {"cpu_op", Category::kCpuOp},
    {"cuda_runtime", Category::kRuntime},
    {"python_function", Category::kPython},
    {"gpu_memcpy", Category::kMemcpy},
    {"gpu_memset", Category::kMemset},
    {"cuda_driver", Category::kDriver},
    {"user_annotation", Category::kAnnotation},
    {"gpu_user_annotation", Category::kGpuAnnotation},
    {"cuda_sync", Category::kSync},
    {"overhead", Category::kOverhead},
    {"Trace", Category::kSpan},
    {ct::kCategoryGpuRange, Category::kGpuOther},
    {ct::kCategoryIteration, Category::kDerivedMarker},
    {ct::kCategoryAnnotation, Category::kDerivedMarker},
    {"xpu_runtime", Category::kRuntime},
    {"privateuse1_runtime", Category::kRuntime},
    {"mtia_runtime", Category::kRuntime},
    {"xpu_driver", Category::kDriver},
    {"privateuse1_driver", Category::kDriver},
};
// PyTorch 1.8's capitalised names.
constexpr Named kLegacyCategories[] = {{"Operator", Category::kCpuOp},
                                       {"Runtime", Category::kRuntime},
                                       {"Kernel", Category::kKernel},
                                       {"Memcpy", Category::kMemcpy},
                                       {"Memset", Category::kMemset}};

// Whether `cat` is `name`: the length and the first byte first, so that only the match calls
// memcmp (per event, several names share a length: kernel and cpu_op, python_function and
// user_annotation).
bool Is(std::string_view cat, std::string_view name) {
  return cat.size() == name.size() && !cat.empty() && cat[0] == name[0] && cat == name;
}

}  // namespace

Category Classify(std::string_view cat, bool* legacy) {
  for (const auto& [name, category] : kCategories) {
    if (Is(cat, name)) return category;
  }
  for (const auto& [name, category] : kLegacyCategories) {
    if (Is(cat, name)) {
      *legacy = true;
      return category;
    }
  }
  return Category::kUnknown;
}

// "Memcpy HtoD (Pageable -> Device)" / "Memcpy DtoH (Device -> Host)" (ROCm) / "Memset (Device)".
void ParseMemopName(std::string_view name, bool memset, model::MemopRow* row) {
  if (memset) {
    row->kind = MemopKind::kMemset;
    auto open = name.find('(');
    auto close = name.rfind(')');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      row->dst = model::ParseMemoryKind(name.substr(open + 1, close - open - 1));
    }
    return;
  }
  auto sp = name.find(' ');
  std::string_view kind =
      sp == std::string_view::npos ? std::string_view() : name.substr(sp + 1, 4);
  if (kind == "HtoD")
    row->kind = MemopKind::kHtoD;
  else if (kind == "DtoH")
    row->kind = MemopKind::kDtoH;
  else if (kind == "DtoD")
    row->kind = MemopKind::kDtoD;
  else if (kind == "HtoH")
    row->kind = MemopKind::kHtoH;
  else if (kind == "PtoP")
    row->kind = MemopKind::kPtoP;
  auto open = name.find('(');
  auto arrow = name.find(" -> ");
  auto close = name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos &&
      close != std::string_view::npos && open < arrow && arrow < close) {
    row->src = model::ParseMemoryKind(name.substr(open + 1, arrow - open - 1));
    row->dst = model::ParseMemoryKind(name.substr(arrow + 4, close - arrow - 4));
  }
}

// gpuscope's export states the copy direction and memory kinds in args, for copies whose
// names do not spell them (names from ROCm or nsys sources).
void ApplyExportedCopyArgs(const KinetoEvent& ev, model::MemopRow* row) {
  if (!ev.copy_kind.empty()) model::ParseMemopKind(ev.copy_kind, &row->kind);
  if (!ev.src_kind.empty()) row->src = model::ParseMemoryKind(ev.src_kind);
  if (!ev.dst_kind.empty()) row->dst = model::ParseMemoryKind(ev.dst_kind);
}

}  // namespace gpuscope::import::kineto::events
