// DiffByCategory: diff's kernel rows summed by category, with the rows behind each change.

#include <algorithm>
#include <array>
#include <cstdlib>
#include <unordered_map>

#include "analysis/diff/diff.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// The category of each kernel key (Diff's row name) of `t`, decided per distinct name id.
void AddKeys(const model::Trace& t, const DiffOptions& o, const CategoryRules& rules,
             std::unordered_map<std::string, KernelCategory>* out) {
  const std::vector<KernelCategory> of = CategorizeKernels(t, rules);
  std::vector<bool> seen(t.strings.size(), false);
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const model::StringId id = t.kernels.name[i];
    if (id < seen.size() && seen[id]) continue;
    if (id < seen.size()) seen[id] = true;
    std::string n = base::Demangle(t.str(id));
    out->emplace(o.exact_names ? n : NormalizeKernelName(n), of[i]);
  }
}

}  // namespace

std::vector<CategoryDiff> DiffByCategory(const model::Trace& before, const model::Trace& after,
                                         const DiffReport& r, const DiffOptions& o) {
  const auto& rules = o.analyze.categories ? *o.analyze.categories : *BuiltInCategoryRules();
  std::unordered_map<std::string, KernelCategory> category;
  AddKeys(before, o, rules, &category);
  AddKeys(after, o, rules, &category);
  std::array<CategoryDiff, kCategoryCount> by;
  for (size_t c = 0; c < kCategoryCount; ++c) by[c].category = static_cast<KernelCategory>(c);
  auto add = [&](KernelCategory c, const NamedDiff& d, bool kernel) {
    CategoryDiff& s = by[static_cast<size_t>(c)];
    s.calls_before += d.calls_before, s.calls_after += d.calls_after;
    s.total_before += d.total_before, s.total_after += d.total_after;
    if (kernel) s.top.push_back(d);
  };
  for (const NamedDiff& d : r.kernels) {
    auto it = category.find(d.name);
    add(it == category.end() ? KernelCategory::kOther : it->second, d, true);
  }
  for (const NamedDiff& d : r.memops) add(KernelCategory::kCopy, d, false);
  std::vector<CategoryDiff> out;
  for (CategoryDiff& s : by) {
    if (s.total_before == 0 && s.total_after == 0) continue;
    std::sort(s.top.begin(), s.top.end(), [](const NamedDiff& a, const NamedDiff& b) {
      return std::llabs(a.delta()) > std::llabs(b.delta());
    });
    if (s.top.size() > 3) s.top.resize(3);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const CategoryDiff& a, const CategoryDiff& b) {
    return std::llabs(a.delta()) > std::llabs(b.delta());
  });
  return out;
}

}  // namespace gpuscope::analysis
