#include "base/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuscope::base {
namespace {

// A plain file read with read(2): the page cache does the buffering and RSS stays flat.
class FileSource : public ByteSource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override { close(fd_); }
  long long Read(char* dst, size_t capacity) override {
    while (true) {
      ssize_t n = read(fd_, dst, capacity);
      if (n >= 0) return n;
      if (errno == EINTR) continue;
      error_ = std::strerror(errno);
      return -1;
    }
  }
  bool Seek(uint64_t offset) override {
    return lseek(fd_, static_cast<off_t>(offset), SEEK_SET) == static_cast<off_t>(offset);
  }
  bool seekable() const override { return true; }
  uint64_t size() const override { return size_; }

 private:
  int fd_;
  uint64_t size_;
};

// Streams a gzip file (any number of concatenated members) through zlib.
class GzipSource : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> raw) : raw_(std::move(raw)), in_(kInSize) {
    std::memset(&zs_, 0, sizeof(zs_));
    inflateInit2(&zs_, 15 + 32);  // 15-bit window, accept a gzip or zlib header
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  long long Read(char* dst, size_t capacity) override {
    if (!pending_error_.empty()) {
      error_ = pending_error_;
      return -1;
    }
    if (done_) return 0;
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(capacity);
    while (zs_.avail_out == capacity) {
      if (zs_.avail_in == 0) {
        long long n = raw_->Read(in_.data(), in_.size());
        if (n < 0) {
          error_ = raw_->error();
          return -1;
        }
        if (n == 0) {
          if (!clean_end_) {
            error_ = "gzip stream ends early (the file is truncated)";
            return -1;
          }
          done_ = true;
          return 0;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(n);
        compressed_read_ += n;
      }
      if (clean_end_) {
        // Another gzip member follows the previous one: restart the decoder.
        inflateReset(&zs_);
        clean_end_ = false;
      }
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        clean_end_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        std::string what = std::string("gzip data is corrupt (") +
                           (zs_.msg ? zs_.msg : "inflate error") + ") near compressed byte " +
                           std::to_string(compressed_read_ - zs_.avail_in);
        // Hand over what was decoded before the damage first; report the error next call.
        if (zs_.avail_out < capacity) {
          pending_error_ = what;
          break;
        }
        error_ = what;
        return -1;
      }
    }
    const long long got = static_cast<long long>(capacity - zs_.avail_out);
    inflated_ += static_cast<uint64_t>(got);
    if (inflated_ > kInflateFloor &&
        inflated_ > kMaxInflateRatio * static_cast<uint64_t>(compressed_read_)) {
      // Hand over this block; the next call ends the stream.
      pending_error_ = "inflates to more than " + std::to_string(kMaxInflateRatio) +
                       " times its compressed size (" + std::to_string(inflated_ >> 20) +
                       " MiB from " + std::to_string(compressed_read_ >> 20) +
                       " MiB; real traces inflate 5-50 times): a crafted or damaged file, "
                       "read no further";
    }
    return got;
  }
  bool Seek(uint64_t) override { return false; }
  bool seekable() const override { return false; }
  uint64_t size() const override { return 0; }

 private:
  static constexpr size_t kInSize = 1 << 20;
  // An inflation ratio beyond any real trace's (the samples: at most 30; deflate's limit is
  // 1032) ends the stream once past the floor: a bomb costs no more than 200 x its size of
  // parsing or of temporary disk (a gzipped database is inflated to a file).
  static constexpr uint64_t kMaxInflateRatio = 200;
  static constexpr uint64_t kInflateFloor = 64ULL << 20;
  uint64_t inflated_ = 0;
  std::unique_ptr<ByteSource> raw_;
  std::vector<char> in_;
  z_stream zs_;
  bool clean_end_ = false;
  bool done_ = false;
  std::string pending_error_;
  long long compressed_read_ = 0;
};

// Runs the inner source on a thread, handing over fixed-size blocks through a bounded queue.
class ReadAheadSource : public ByteSource {
 public:
  explicit ReadAheadSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    worker_ = std::thread([this] {
      // An exception (out of memory) must not end the process from this thread: it is handed
      // to the reader, which rethrows it on its own thread.
      try {
        Produce();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        thrown_ = std::current_exception();
        finished_ = true;
        cv_.notify_all();
      }
    });
  }
  ~ReadAheadSource() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  long long Read(char* dst, size_t capacity) override {
    size_t written = 0;
    while (written < capacity) {
      if (current_pos_ == current_.size()) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty() || finished_; });
        if (thrown_) std::rethrow_exception(thrown_);
        if (queue_.empty()) {
          if (failed_) {
            if (written > 0) return static_cast<long long>(written);
            error_ = inner_error_;
            return -1;
          }
          return static_cast<long long>(written);
        }
        current_ = std::move(queue_.front());
        queue_.pop_front();
        current_pos_ = 0;
        cv_.notify_all();
      }
      size_t n = std::min(capacity - written, current_.size() - current_pos_);
      std::memcpy(dst + written, current_.data() + current_pos_, n);
      written += n;
      current_pos_ += n;
    }
    return static_cast<long long>(written);
  }
  bool Seek(uint64_t) override { return false; }
  bool seekable() const override { return false; }
  uint64_t size() const override { return inner_->size(); }

 private:
  static constexpr size_t kBlock = 4 << 20;
  static constexpr size_t kMaxQueued = 4;

  void Produce() {
    while (true) {
      std::vector<char> block(kBlock);
      long long n = inner_->Read(block.data(), block.size());
      std::unique_lock<std::mutex> lock(mu_);
      if (n <= 0) {
        failed_ = n < 0;
        inner_error_ = inner_->error();
        finished_ = true;
        cv_.notify_all();
        return;
      }
      block.resize(static_cast<size_t>(n));
      cv_.wait(lock, [this] { return queue_.size() < kMaxQueued || stop_; });
      if (stop_) return;
      queue_.push_back(std::move(block));
      cv_.notify_all();
    }
  }

  std::unique_ptr<ByteSource> inner_;
  std::exception_ptr thrown_;  // what Produce threw, rethrown by Read
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> queue_;
  std::vector<char> current_;
  size_t current_pos_ = 0;
  bool finished_ = false;
  bool failed_ = false;
  bool stop_ = false;
  std::string inner_error_;
};

StatusOr<std::unique_ptr<ByteSource>> OpenRaw(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const char* what = errno == ENOENT ? "no such file" : std::strerror(errno);
    return Status::Error(path + ": cannot open (" + what + "); check the path and permissions");
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    return Status::Error(path + ": is a directory, not a trace file; give the trace file itself");
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(new FileSource(fd, static_cast<uint64_t>(st.st_size)));
}

bool HasGzipMagic(const unsigned char* b, size_t n) {
  return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto raw, OpenRaw(path));
  unsigned char magic[2] = {0, 0};
  long long n = raw->Read(reinterpret_cast<char*>(magic), 2);
  if (n < 0) return Status::Error(path + ": cannot read (" + raw->error() + ")");
  raw->Seek(0);
  if (HasGzipMagic(magic, static_cast<size_t>(n))) {
    return std::unique_ptr<ByteSource>(new GzipSource(std::move(raw)));
  }
  return raw;
}

StatusOr<FileSniff> SniffFile(const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto raw, OpenRaw(path));
  FileSniff sniff;
  std::string first(512, '\0');
  long long n = raw->Read(first.data(), first.size());
  if (n < 0) return Status::Error(path + ": cannot read (" + raw->error() + ")");
  first.resize(static_cast<size_t>(n));
  auto* b = reinterpret_cast<const unsigned char*>(first.data());
  sniff.gzip = HasGzipMagic(b, first.size());
  sniff.zstd = first.size() >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
  std::unique_ptr<ByteSource> source;
  if (sniff.gzip) {
    raw->Seek(0);
    source.reset(new GzipSource(std::move(raw)));
    sniff.head.resize(64 << 10);
    size_t got = 0;
    while (got < sniff.head.size()) {
      long long r = source->Read(sniff.head.data() + got, sniff.head.size() - got);
      if (r < 0) sniff.error = source->error();
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    sniff.head.resize(got);
  } else {
    sniff.head = first;
    std::string more(64 << 10, '\0');
    long long r = raw->Read(more.data(), more.size());
    if (r > 0) sniff.head.append(more.data(), static_cast<size_t>(r));
  }
  // A UTF-8 byte order mark says nothing about the format: every text reader skips it.
  if (sniff.head.rfind("\xef\xbb\xbf", 0) == 0) sniff.head.erase(0, 3);
  sniff.sqlite = sniff.head.rfind("SQLite format 3", 0) == 0;  // also inside gzip (.rpd.gz)
  sniff.tar = sniff.head.size() >= 262 && sniff.head.compare(257, 5, "ustar") == 0;
  return sniff;
}

std::unique_ptr<ByteSource> MakeReadAheadSource(std::unique_ptr<ByteSource> inner) {
  return std::unique_ptr<ByteSource>(new ReadAheadSource(std::move(inner)));
}

}  // namespace gpuscope::base
