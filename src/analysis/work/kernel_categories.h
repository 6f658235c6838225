#pragma once
// Kernel categories: what a kernel's time is spent on (gemm, attention, norm, ...), for
// `stats --by category`, analyze's breakdown, diff and the report. The rules are data
// (work/categories.tsv, compiled in; `--categories FILE` gives another table of that form):
// lines of (category, field, pattern), the first line that matches a kernel deciding. Name
// lines are tried on the demangled, lower-cased kernel name; op lines on the framework op that
// launched it (and the ops around that one), only when no name line matched.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::analysis {

enum class KernelCategory : uint8_t {
  kGemm,
  kAttention,
  kConv,
  kNorm,
  kFused,
  kElementwise,
  kReduction,
  kCopy,
  kCommunication,
  kOther
};
inline constexpr size_t kCategoryCount = static_cast<size_t>(KernelCategory::kOther) + 1;

std::string_view CategoryName(KernelCategory c);         // "gemm", "attention", ...
std::string_view CategoryDescription(KernelCategory c);  // a line for `help categories`
bool CategoryNamed(std::string_view name, KernelCategory* out);

// One line of the table.
struct CategoryRule {
  KernelCategory category = KernelCategory::kOther;
  bool on_op = false;     // the field: false = the kernel's name, true = the launching op's
  bool anchored = false;  // '^': the field starts with the pattern (else contains it)
  std::string pattern;    // lower case, without the '^'
  std::string note;
  bool Matches(std::string_view lower) const {
    return anchored ? lower.starts_with(pattern) : lower.find(pattern) != std::string_view::npos;
  }
};

struct CategoryRules {
  std::vector<CategoryRule> rules;
  std::string source;  // "built in (categories.tsv)" or the file given
  // The category of a demangled, lower-cased kernel name; kOther when no name line matches.
  KernelCategory OfName(std::string_view lower_name) const;
  // The category of a kernel's name as the trace holds it: its first 64 KiB as written
  // (base::kMaxShownName; a longer name is a crafted trace's, invalid.name_length), demangled
  // and lower-cased. Each copy is at most that long, whatever the name's size.
  KernelCategory OfKernel(std::string_view name) const;
  // The category of an op's name as the trace holds it (its first 64 KiB, lower-cased) by the
  // op lines; kOther when none matches.
  KernelCategory OfOp(std::string_view op) const;
};

// Reads a table in categories.tsv's form (lines starting with '#' and empty ones skipped, then
// the header, then a rule per line). An error names the first line that does not read.
base::StatusOr<CategoryRules> ParseCategoryRules(std::string_view tsv);
// The table compiled in (work/categories.tsv).
std::shared_ptr<const CategoryRules> BuiltInCategoryRules();

// The category of every kernel row of `t`: decided once per distinct kernel name (and, for
// names no name line matches, once per distinct launching op), never per dispatch; as OfKernel
// and OfOp judge them.
std::vector<KernelCategory> CategorizeKernels(const model::Trace& t, const CategoryRules& rules);

}  // namespace gpuscope::analysis
