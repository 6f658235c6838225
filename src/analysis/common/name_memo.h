#pragma once
// A question about names (call_names.h's IsSyncApi, a kernel's category, the text a cause is
// named by ...) asked of a trace's rows, answered once per distinct string: millions of calls,
// kernels and ops share a few thousand names, and each answer is a handful of substring searches.

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace gpuscope::analysis {

// `answer` (a function of a name's text) memoised by the trace's string id. A yes/no or a small
// enumeration is kept in a table of every string id (a byte or two each); anything larger (an
// interned text, a label) in a map of the names asked about. One per loop and thread: the memo
// is written as it is read.
template <typename Answer>
class NameMemo {
 public:
  using Result = std::decay_t<std::invoke_result_t<Answer&, std::string_view>>;

  NameMemo(const model::Trace& t, Answer answer) : t_(t), answer_(std::move(answer)) {
    if constexpr (kTable) known_.resize(t.strings.size());
  }
  Result operator()(model::StringId name) {
    if constexpr (kTable) {
      if (name >= known_.size()) return answer_(t_.str(name));  // a string added after the memo
      auto& k = known_[name];
      if (!k) k = answer_(t_.str(name));
      return *k;
    } else {
      auto [it, fresh] = asked_.try_emplace(name);
      if (fresh) it->second = answer_(t_.str(name));
      return it->second;
    }
  }

 private:
  static constexpr bool kTable = sizeof(Result) == 1 && std::is_trivially_copyable_v<Result>;
  const model::Trace& t_;
  Answer answer_;
  std::vector<std::optional<Result>> known_;           // kTable: per string id
  std::unordered_map<model::StringId, Result> asked_;  // otherwise: per name asked about
};

}  // namespace gpuscope::analysis
