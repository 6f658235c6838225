#include "model/problems.h"

namespace gpuscope::model {

void ProblemLog::Add(ProblemKind kind, std::string_view example, uint64_t n) {
  AddNamed(ProblemKindName(kind), example, n);
}

uint64_t ProblemLog::Count(ProblemKind kind) const {
  auto it = entries_.find(ProblemKindName(kind));
  return it == entries_.end() ? 0 : it->second.count;
}

std::string_view ProblemEffectName(ProblemEffect e) {
  static constexpr std::string_view kNames[] = {"dropped", "repaired", "kept"};
  return kNames[static_cast<size_t>(e)];
}

void ProblemLog::AddNamed(std::string_view kind, std::string_view example, uint64_t n) {
  auto it = entries_.find(kind);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(kind), Entry{}).first;
    it->second.first_example = std::string(example);
  }
  it->second.count += n;
}

void ProblemLog::Merge(const ProblemLog& other) {
  for (const auto& [kind, e] : other.entries_) AddNamed(kind, e.first_example, e.count);
}

uint64_t ProblemLog::total() const {
  uint64_t t = 0;
  for (const auto& [kind, e] : entries_) t += e.count;
  return t;
}

}  // namespace gpuscope::model
