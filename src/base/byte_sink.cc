#include "base/byte_sink.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "base/files.h"

namespace gpuscope::base {
namespace {

class FileSink final : public ByteSink {
 public:
  FileSink(std::string path, std::FILE* f) : ByteSink(std::move(path)), f_(f) {}
  ~FileSink() override {
    if (f_) std::fclose(f_);
  }
  Status Close() override {
    Flush();
    int rc = std::fclose(f_);
    f_ = nullptr;
    if (failed_ || rc != 0) return Status::Error(path_ + ": could not write the file (disk full?)");
    return Status::Ok();
  }

 private:
  void Flush() override {
    if (buffer_.empty()) return;
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), f_) != buffer_.size()) failed_ = true;
    written_ += buffer_.size();
    buffer_.clear();
  }
  std::FILE* f_;
};

class GzipSink final : public ByteSink {
 public:
  GzipSink(std::string path, gzFile f) : ByteSink(std::move(path)), f_(f) {}
  ~GzipSink() override {
    if (f_) gzclose(f_);
  }
  Status Close() override {
    Flush();
    int rc = gzclose(f_);
    f_ = nullptr;
    if (failed_ || rc != Z_OK)
      return Status::Error(path_ + ": could not write the compressed file (disk full?)");
    return Status::Ok();
  }

 private:
  void Flush() override {
    if (buffer_.empty()) return;
    if (gzwrite(f_, buffer_.data(), static_cast<unsigned>(buffer_.size())) !=
        static_cast<int>(buffer_.size())) {
      failed_ = true;
    }
    written_ += buffer_.size();
    buffer_.clear();
  }
  gzFile f_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSink>> ByteSink::Create(const std::string& path) {
  GPUSCOPE_RETURN_IF_ERROR(EnsureParentDirectory(path));
  // Level 3: within 10% of level 6's size on trace JSON at about twice the speed.
  if (path.ends_with(".gz")) {
    gzFile f = gzopen(path.c_str(), "wb3");
    if (!f) return Status::Error(path + ": cannot create the file (" + std::strerror(errno) + ")");
    gzbuffer(f, 1 << 18);
    return std::unique_ptr<ByteSink>(new GzipSink(path, f));
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::Error(path + ": cannot create the file (" + std::strerror(errno) + ")");
  return std::unique_ptr<ByteSink>(new FileSink(path, f));
}

}  // namespace gpuscope::base
