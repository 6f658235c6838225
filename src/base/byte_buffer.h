#pragma once
// ByteBuffer: a byte array that grows with realloc. A large block (above the mmap threshold that
// TuneAllocator fixes) is then moved by remapping its pages, so growing a 256 MiB buffer to
// 512 MiB holds 512 MiB, not both (std::vector copies and holds both while it grows).

#include <cstddef>
#include <cstdlib>
#include <new>

namespace gpuscope::base {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { std::free(data_); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  // New bytes are uninitialised; throws std::bad_alloc as a vector would.
  void Resize(size_t size) {
    void* p = std::realloc(data_, size == 0 ? 1 : size);
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<char*>(p);
    size_ = size;
  }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  char& operator[](size_t i) { return data_[i]; }
  char operator[](size_t i) const { return data_[i]; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace gpuscope::base
