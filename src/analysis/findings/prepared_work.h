#pragma once
// PreparedWork: what a rule computes before its turn, once per analysis, by whichever thread asks
// first: analyze's second core once the replay graph and the notes are done (RuleInfo::prepare),
// else the rule itself when its turn comes. Only for work that reads what no thread writes while
// the rules run: the trace, the window, the options, the graph attribution - not the claims, the
// gaps' names or the Attributor's memos.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <typeindex>

namespace gpuscope::analysis::internal {

class PreparedWork {
 public:
  // The T that make() returns, made on the first call for this T (a caller that comes while
  // another makes it waits for that one); one T per type, so each rule names its own. A make()
  // that throws leaves it unmade, and a caller waiting makes it again. (A mutex and a condition
  // variable, not std::call_once: a call_once whose callable throws hangs on some platforms and
  // under ThreadSanitizer.)
  template <typename T, typename Make>
  const T& Get(const Make& make) {
    std::unique_lock<std::mutex> lock(mutex_);
    Slot& s = slots_[std::type_index(typeid(T))];  // a map's node never moves
    made_.wait(lock, [&] { return s.state != State::kMaking; });
    if (s.state == State::kMade) return *static_cast<const T*>(s.value.get());
    s.state = State::kMaking;
    lock.unlock();
    std::shared_ptr<const T> value;
    try {
      value = std::make_shared<const T>(make());
    } catch (...) {
      lock.lock();
      s.state = State::kEmpty;
      made_.notify_all();
      throw;
    }
    lock.lock();
    s.value = std::move(value);
    s.state = State::kMade;
    made_.notify_all();
    return *static_cast<const T*>(s.value.get());
  }

 private:
  enum class State : uint8_t { kEmpty, kMaking, kMade };
  struct Slot {
    State state = State::kEmpty;
    std::shared_ptr<const void> value;  // set once made, never changed after
  };
  std::mutex mutex_;  // guards slots_ and every slot's fields
  std::condition_variable made_;
  std::map<std::type_index, Slot> slots_;
};

}  // namespace gpuscope::analysis::internal
