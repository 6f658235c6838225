#include "base/string_pool.h"

#include <cstring>

#include "base/hash.h"

namespace gpuscope::base {

namespace {
constexpr size_t kChunk = 1 << 20;
}

namespace {
uint32_t HashOf(std::string_view s) {
  uint64_t h = HashBytes(s);
  return static_cast<uint32_t>(h ^ (h >> 32));
}
}  // namespace

StringPool::StringPool() : slots_(16, 0) {
  views_.emplace_back();
  uint32_t h = HashOf({});
  slots_[Probe({}, h)] = (uint64_t{h} << 32) | 1;  // "" is id 0
}

size_t StringPool::Probe(std::string_view s, uint32_t h) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if (static_cast<uint32_t>(slot >> 32) == h && views_[(slot & 0xffffffffu) - 1] == s) return i;
  }
}

void StringPool::Rehash(size_t slots) {
  std::vector<uint64_t> old(slots, 0);
  old.swap(slots_);
  const size_t mask = slots - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    size_t i = static_cast<uint32_t>(slot >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

void StringPool::ReserveIndex(size_t names) {
  size_t slots = slots_.size();
  while (2 * (names + 1) > slots) slots *= 2;
  if (slots != slots_.size()) Rehash(slots);
}

StringId StringPool::Add(std::string_view stored, uint32_t h) {
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  if (2 * (views_.size() + 1) > slots_.size()) Rehash(2 * slots_.size());
  slots_[Probe(stored, h)] = (uint64_t{h} << 32) | (uint64_t{id} + 1);
  return id;
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.size() > kChunk / 4) {
    // Large strings get their own chunk so they never waste the shared one.
    large_.emplace_back(new char[s.size()]);
    std::memcpy(large_.back().get(), s.data(), s.size());
    chunk_bytes_ += s.size();
    return std::string_view(large_.back().get(), s.size());
  }
  if (chunks_.empty() || chunk_used_ + s.size() > chunk_size_) {
    chunks_.emplace_back(new char[kChunk]);
    chunk_size_ = kChunk;
    chunk_used_ = 0;
    chunk_bytes_ += kChunk;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  return std::string_view(dst, s.size());
}

StringId StringPool::Intern(std::string_view s) {
  if (slots_.empty()) *this = StringPool();  // a moved-from pool starts again, "" as id 0
  const uint32_t h = HashOf(s);
  size_t i = Probe(s, h);
  if (slots_[i] != 0) return static_cast<StringId>((slots_[i] & 0xffffffffu) - 1);
  return Add(Store(s), h);
}

std::vector<StringId> StringPool::Absorb(StringPool&& other) {
  if (slots_.empty()) *this = StringPool();
  std::vector<StringId> ids(other.views_.size(), kEmptyString);
  std::vector<uint64_t>().swap(other.slots_);  // its index is never read again
  // First the names both pools hold; the others counted, with their bytes.
  constexpr StringId kNew = UINT32_MAX;
  size_t fresh = 0, fresh_bytes = 0;
  for (size_t i = 1; i < ids.size(); ++i) {
    if (!Find(other.views_[i], &ids[i])) {
      ids[i] = kNew;
      ++fresh;
      fresh_bytes += other.views_[i].size();
    }
  }
  // Adopting wastes the bytes of the shared names (left in `other`'s chunks); copying holds
  // the new names twice until `other` is freed. Adopt when most of its bytes are new.
  const bool adopt = 2 * fresh_bytes >= other.chunk_bytes_;
  ReserveIndex(views_.size() + fresh);
  views_.reserve(views_.size() + fresh);
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] != kNew) continue;
    std::string_view s = other.views_[i];
    ids[i] = Add(adopt ? s : Store(s), HashOf(s));
  }
  if (adopt) {
    // Its chunks go first: the last of this pool's stays the one being filled.
    chunks_.insert(chunks_.begin(), std::make_move_iterator(other.chunks_.begin()),
                   std::make_move_iterator(other.chunks_.end()));
    for (auto& l : other.large_) large_.push_back(std::move(l));
    chunk_bytes_ += other.chunk_bytes_;
  }
  other = StringPool();
  return ids;
}

bool StringPool::Find(std::string_view s, StringId* id) const {
  size_t i = slots_.empty() ? 0 : Probe(s, HashOf(s));
  if (slots_.empty() || slots_[i] == 0) {
    *id = kEmptyString;
    return false;
  }
  *id = static_cast<StringId>((slots_[i] & 0xffffffffu) - 1);
  return true;
}

}  // namespace gpuscope::base
