#pragma once
// StringPool: interns every distinct name once and hands out dense 32-bit ids.
// Id 0 is always the empty string. Views returned by Get() stay valid for the pool's lifetime
// (strings live in stable chunks that never move).

#include <cstdint>
#include <memory>
#include <string_view>
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
  // Takes `other`'s names: returns, per id of `other`, its id here. Names new to this pool keep
  // their bytes where `other` stored them when most of `other`'s bytes are new (its storage is
  // adopted: a million distinct names are not copied, nor held twice while merging), else they
  // are copied and `other`'s storage freed. `other` is left empty.
  std::vector<StringId> Absorb(StringPool&& other);
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
  // Finds `s` (with hash `h`): the slot holding it, else the empty slot where it would go.
  size_t Probe(std::string_view s, uint32_t h) const;
  // Rebuilds the index with `slots` slots (a power of two).
  void Rehash(size_t slots);
  // Grows the index until `names` fit at most half full.
  void ReserveIndex(size_t names);
  // Adds a name known to be absent, its bytes at `stored`; returns its id.
  StringId Add(std::string_view stored, uint32_t h);

  std::vector<std::string_view> views_;
  // The index: open addressing, linear probing, at most half full. A slot holds the string's
  // 32-bit hash (high half) and its id + 1 (low half; 0 = empty): 16 bytes per name at the
  // worst load, against ~56 for a node-based map (a million distinct names, issue 33).
  std::vector<uint64_t> slots_;
};

}  // namespace gpuscope::base
