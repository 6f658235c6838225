#include "import/kineto/kineto_categories.h"

#include <string>

#include "format/chrome_trace.h"

namespace gpuscope::import::kineto::events {

using model::MemopKind;
using model::MemoryKind;

Category Classify(std::string_view cat, bool* legacy) {
  // Current names first (most events), then the PyTorch 1.8 capitalised ones.
  if (cat == "kernel") return Category::kKernel;
  if (cat == "cpu_op") return Category::kCpuOp;
  if (cat == "cuda_runtime") return Category::kRuntime;
  if (cat == "python_function") return Category::kPython;
  if (cat == "gpu_memcpy") return Category::kMemcpy;
  if (cat == "gpu_memset") return Category::kMemset;
  if (cat == "cuda_driver") return Category::kDriver;
  if (cat == "user_annotation") return Category::kAnnotation;
  if (cat == "gpu_user_annotation") return Category::kGpuAnnotation;
  if (cat == "cuda_sync") return Category::kSync;
  if (cat == "overhead") return Category::kOverhead;
  if (cat == "Trace") return Category::kSpan;
  // Written by gpuscope's own export: GPU ranges that are neither annotations nor syncs, and
  // the iteration markers it derived (not source events: skipped on reading).
  if (cat == format::chrome_trace::kCategoryGpuRange) return Category::kGpuOther;
  if (cat == format::chrome_trace::kCategoryIteration ||
      cat == format::chrome_trace::kCategoryAnnotation)
    return Category::kDerivedMarker;
  if (cat == "xpu_runtime" || cat == "privateuse1_runtime" || cat == "mtia_runtime") {
    return Category::kRuntime;
  }
  if (cat == "xpu_driver" || cat == "privateuse1_driver") return Category::kDriver;
  *legacy = true;
  if (cat == "Operator") return Category::kCpuOp;
  if (cat == "Runtime") return Category::kRuntime;
  if (cat == "Kernel") return Category::kKernel;
  if (cat == "Memcpy") return Category::kMemcpy;
  if (cat == "Memset") return Category::kMemset;
  *legacy = false;
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
