#pragma once
// What a Kineto event is, from its "cat" and its name: the category the builder files it under,
// and a copy's direction and memory kinds from its name or from gpuscope's exported args.
// Internal to import/kineto.

#include <cstdint>
#include <string_view>

#include "import/kineto/kineto_event.h"
#include "model/tables.h"

namespace gpuscope::import::kineto::events {

enum class Category : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,
  kDriver,
  kCpuOp,
  kAnnotation,
  kPython,
  kGpuAnnotation,
  kSync,
  kGpuOther,
  kOverhead,
  kSpan,
  kDerivedMarker,
  kUnknown
};

// The category of a "cat" value; `legacy` is set for the old profiler's names.
Category Classify(std::string_view cat, bool* legacy);
// "Memcpy HtoD (Pageable -> Device)" / "Memcpy DtoH (Device -> Host)" (ROCm) / "Memset (Device)".
void ParseMemopName(std::string_view name, bool memset, model::MemopRow* row);
// gpuscope's export states the copy direction and memory kinds in args, for copies whose
// names do not spell them (names from ROCm or nsys sources).
void ApplyExportedCopyArgs(const KinetoEvent& ev, model::MemopRow* row);

}  // namespace gpuscope::import::kineto::events
