#pragma once
// TempDir: a fresh directory under /tmp, removed with everything in it when the object goes
// away - on every return path, error returns included.

#include <string>

#include "base/status.h"

namespace gpuscope::base {

class TempDir {
 public:
  // `prefix`: the directory's name before the random part ("gpuscope-run").
  static StatusOr<TempDir> Create(const std::string& prefix);
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace gpuscope::base
