// DiffByCategory: diff's kernel rows summed by category, with the rows behind each change.

#include <algorithm>
#include <array>
#include <cstdlib>
#include <unordered_map>

#include "analysis/diff/diff.h"
#include "base/text.h"

namespace gpuscope::analysis {
namespace {

// GPU time of each kernel key (Diff's row name) by category, over both runs. A name's
// instances can fall in different categories (a name rule missed, the launching op decides:
// cuDNN's volta_scudnn_* kernels are conv when aten::cudnn_convolution launches them, other
// where no launch is linked); the key takes the category holding most of its time. (It took its
// first instance's: a first call without a linked op put a resnet50's cuDNN kernels, 87 ms of
// 640, in 'other' in diff while stats put them in conv.)
using KeyTimes = std::unordered_map<std::string, std::array<int64_t, kCategoryCount>>;
void AddKeys(const model::Trace& t, const DiffOptions& o, const CategoryRules& rules,
             KeyTimes* out) {
  const std::vector<KernelCategory> of = CategorizeKernels(t, rules);
  std::unordered_map<model::StringId, std::array<int64_t, kCategoryCount>*> key_of;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const model::StringId id = t.kernels.name[i];
    auto it = key_of.find(id);
    if (it == key_of.end()) {
      std::string n = base::Demangle(t.str(id));
      auto& times = (*out)[o.exact_names ? n : NormalizeKernelName(n)];  // zeroed when new
      it = key_of.emplace(id, &times).first;
    }
    // At least 1 ns each: a name whose instances all took 0 ns still has a category with time
    // (all zeros would make the first category, gemm, win the tie).
    (*it->second)[static_cast<size_t>(of[i])] += std::max<int64_t>(1, t.kernels.dur_ns[i]);
  }
}

}  // namespace

std::vector<CategoryDiff> DiffByCategory(const model::Trace& before, const model::Trace& after,
                                         const DiffReport& r, const DiffOptions& o) {
  const auto& rules = o.analyze.categories ? *o.analyze.categories : *BuiltInCategoryRules();
  KeyTimes times;
  AddKeys(before, o, rules, &times);
  AddKeys(after, o, rules, &times);
  std::unordered_map<std::string, KernelCategory> category;
  for (const auto& [key, by_category] : times) {
    const auto most = std::max_element(by_category.begin(), by_category.end());
    category.emplace(key, static_cast<KernelCategory>(most - by_category.begin()));
  }
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
