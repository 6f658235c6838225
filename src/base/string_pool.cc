#include "base/string_pool.h"

#include <cstring>
#include <functional>

namespace gpuscope::base {

namespace {
constexpr size_t kChunk = 1 << 20;
}

namespace {
uint32_t HashOf(std::string_view s) {
  uint64_t h = std::hash<std::string_view>{}(s);
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

void StringPool::Grow() {
  std::vector<uint64_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    size_t i = static_cast<uint32_t>(slot >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
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
  std::string_view stored = Store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  if (2 * (views_.size() + 1) > slots_.size()) {
    Grow();
    i = Probe(stored, h);
  }
  slots_[i] = (uint64_t{h} << 32) | (uint64_t{id} + 1);
  return id;
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
