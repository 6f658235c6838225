#pragma once
// ByteSink: buffered output to a file, gzip-compressed when the path ends in ".gz". Writers
// stream into it piece by piece; nothing of the output is held beyond a 1 MB buffer.

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuscope::base {

class ByteSink {
 public:
  // Creates (truncating) `path`. Fails with one line naming the file when it cannot be created.
  static StatusOr<std::unique_ptr<ByteSink>> Create(const std::string& path);
  virtual ~ByteSink() = default;

  void Write(std::string_view bytes) {
    buffer_.append(bytes);
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  void Put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  // Flushes and closes; reports the first write error (disk full, ...). Call once, at the end.
  virtual Status Close() = 0;
  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return written_; }

 protected:
  explicit ByteSink(std::string path) : path_(std::move(path)) {}
  virtual void Flush() = 0;

  static constexpr size_t kFlushBytes = 1 << 20;
  std::string path_;
  std::string buffer_;
  uint64_t written_ = 0;
  bool failed_ = false;
};

}  // namespace gpuscope::base
