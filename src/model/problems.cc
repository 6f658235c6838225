#include "model/problems.h"

namespace gpuscope::model {

void ProblemLog::Add(std::string_view kind, std::string_view example, uint64_t n) {
  auto it = entries_.find(kind);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(kind), Entry{}).first;
    it->second.first_example = std::string(example);
  }
  it->second.count += n;
}

void ProblemLog::Merge(const ProblemLog& other) {
  for (const auto& [kind, e] : other.entries_) Add(kind, e.first_example, e.count);
}

uint64_t ProblemLog::total() const {
  uint64_t t = 0;
  for (const auto& [kind, e] : entries_) t += e.count;
  return t;
}

}  // namespace gpuscope::model
