#include "base/string_pool.h"

#include <cstring>

namespace gpuscope::base {

namespace {
constexpr size_t kChunk = 1 << 20;
}

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kEmptyString);
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
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored = Store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

bool StringPool::Find(std::string_view s, StringId* id) const {
  auto it = index_.find(s);
  if (it == index_.end()) {
    *id = kEmptyString;
    return false;
  }
  *id = it->second;
  return true;
}

}  // namespace gpuscope::base
