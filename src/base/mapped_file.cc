#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpuscope::base {

StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path, size_t padding) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    return Status::Error(path + ": not a non-empty regular file");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  const size_t reserved = static_cast<size_t>(size) + padding;
  // An anonymous reservation first, the file mapped over its start: the bytes after the file's
  // last page are the reservation's zeros (those of the last page past the end are zero too).
  void* base = mmap(nullptr, reserved, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    close(fd);
    return Status::Error(path + ": cannot map (" + std::strerror(errno) + ")");
  }
  void* file = mmap(base, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  const int map_errno = errno;
  close(fd);  // the mapping keeps the file
  if (file == MAP_FAILED) {
    munmap(base, reserved);
    return Status::Error(path + ": cannot map (" + std::strerror(map_errno) + ")");
  }
  madvise(base, static_cast<size_t>(size), MADV_SEQUENTIAL);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<char*>(base), size, reserved));
}

MappedFile::~MappedFile() { munmap(data_, reserved_); }

void MappedFile::Release(uint64_t begin, uint64_t end) const {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end > begin) madvise(data_ + begin, static_cast<size_t>(end - begin), MADV_DONTNEED);
}

}  // namespace gpuscope::base
