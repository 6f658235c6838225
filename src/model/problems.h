#pragma once
// ProblemLog: recoverable problems found while importing, counted under a kind declared in
// problem_kinds.h (shown by its name, "kineto.event_missing_ts") with the first example kept for
// the message. The import goes on; `info` and a one-line summary on stderr report every kind, so
// nothing is dropped silently.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "model/problem_kinds.h"

namespace gpuscope::model {

class ProblemLog {
 public:
  struct Entry {
    uint64_t count = 0;
    std::string first_example;  // "event #1203 (byte 88412): 'ts' is not a number; event skipped"
  };

  void Add(ProblemKind kind, std::string_view example, uint64_t n = 1);
  uint64_t Count(ProblemKind kind) const;
  void Merge(const ProblemLog& other);
  const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }
  uint64_t total() const;
  bool empty() const { return entries_.empty(); }

 private:
  void AddNamed(std::string_view name, std::string_view example, uint64_t n);
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace gpuscope::model
