#pragma once
// StringPool: interns every distinct name once and hands out dense 32-bit ids.
// Id 0 is always the empty string. Views returned by Get() stay valid for the pool's lifetime
// (strings live in stable chunks that never move).

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpuscope::base {

using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view s);
  // Returns the id of `s` if it was interned, else kEmptyString (and false).
  bool Find(std::string_view s, StringId* id) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return chunk_bytes_; }

 private:
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> chunks_;  // shared chunks; the last one is filling
  std::vector<std::unique_ptr<char[]>> large_;   // one allocation per oversized string
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t chunk_bytes_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace gpuscope::base
