#pragma once
// MappedFile: a plain file mapped read-only, followed by `padding` readable zero bytes, so a
// reader that stops at a NUL byte (JsonCursor) can parse it in place, with no copy into a
// window. Pages behind the reader are handed back (Release) so that resident memory stays a
// few MiB per reader, not the file (mapped pages count in a process's RSS).
//
// The limit: a file truncated by another process while it is mapped makes the pages past its
// new end unreadable (SIGBUS); a file still being written is read through the window instead.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

namespace gpuscope::base {

class MappedFile {
 public:
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps `path` when it is a regular, non-empty file; an error otherwise (the caller reads it
  // through a ByteSource instead).
  static StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path, size_t padding);

  const char* data() const { return data_; }
  uint64_t size() const { return size_; }
  // Drops the whole pages inside [begin, end) from memory; reading them again is correct (they
  // come back from the page cache), only slower. Safe to call from several threads.
  void Release(uint64_t begin, uint64_t end) const;

 private:
  MappedFile(char* data, uint64_t size, size_t reserved)
      : data_(data), size_(size), reserved_(reserved) {}

  char* data_;
  uint64_t size_;
  size_t reserved_;  // the whole reservation: the file's pages and the padding after them
};

}  // namespace gpuscope::base
