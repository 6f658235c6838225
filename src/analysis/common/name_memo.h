#pragma once
// A yes/no question about names (call_names.h's IsSyncApi, IsCommKernelName ...) asked of a
// trace's rows, answered once per distinct string: millions of calls, kernels and ops share a
// few thousand names, and each answer is a handful of substring searches.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// `test` (a function of a std::string_view returning bool) memoised by the trace's string id.
// One per loop and thread: the memo is written as it is read.
template <typename Test>
class NameMemo {
 public:
  NameMemo(const model::Trace& t, Test test)
      : t_(t), test_(std::move(test)), known_(t.strings.size(), kUnknown) {}
  bool operator()(model::StringId name) {
    if (name >= known_.size()) return test_(t_.str(name));  // a string added after the memo
    uint8_t& k = known_[name];
    if (k == kUnknown) k = test_(t_.str(name)) ? kYes : kNo;
    return k == kYes;
  }

 private:
  static constexpr uint8_t kUnknown = 0, kNo = 1, kYes = 2;
  const model::Trace& t_;
  Test test_;
  std::vector<uint8_t> known_;  // per string id
};

}  // namespace gpuscope::analysis
