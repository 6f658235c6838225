#include "base/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace gpuscope::base {
namespace {

uint64_t PageSize() {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// Reads exactly `n` bytes at `offset`; false if the file ended first or the read failed.
bool ReadAt(int fd, char* dst, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t got = pread(fd, dst, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    dst += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// The path of the file mapped last, for the SIGBUS line (a signal handler reads only this).
char g_last_path[1024] = "";
size_t g_last_path_size = 0;

void OnBusError(int) {
  constexpr std::string_view kHead = "gpuscope: ";
  constexpr std::string_view kTail =
      ": the file shrank or could not be read while it was being read (SIGBUS); read it again "
      "once it is complete and readable\n";
  (void)!write(STDERR_FILENO, kHead.data(), kHead.size());
  (void)!write(STDERR_FILENO, g_last_path, g_last_path_size);
  (void)!write(STDERR_FILENO, kTail.data(), kTail.size());
  _exit(2);
}

}  // namespace

void MappedFile::InstallBusErrorLine() {
  struct sigaction action {};
  action.sa_handler = OnBusError;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

bool MappedFile::AddressSpaceLimited() {
  rlimit limit{};
  return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
}

StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path, size_t padding) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    return Status::Error(path + ": not a non-empty regular file");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  const uint64_t page = PageSize();
  const uint64_t whole = size / page * page;  // the bytes of the file's whole pages
  const size_t reserved = static_cast<size_t>((size + padding + page - 1) / page * page);
  // An anonymous reservation; the file's whole pages mapped over its start. The last partial
  // page is a copy in the reservation's own memory, so the bytes after the file are zeros
  // whatever is appended to the file meanwhile (a mapped last page would show it).
  void* base = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    close(fd);
    return Status::Error(path + ": cannot map (" + std::strerror(errno) + ")");
  }
  char* bytes = static_cast<char*>(base);
  std::string failed;  // what went wrong, if anything
  if (whole > 0 && mmap(bytes, static_cast<size_t>(whole), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
                        0) == MAP_FAILED) {
    failed = std::string("cannot map (") + std::strerror(errno) + ")";
  } else if (!ReadAt(fd, bytes + whole, static_cast<size_t>(size - whole), whole)) {
    failed = "its last bytes could not be read (it shrank?)";
  } else if (mprotect(bytes + whole, reserved - static_cast<size_t>(whole), PROT_READ) != 0) {
    failed = std::string("cannot protect its mapping (") + std::strerror(errno) + ")";
  }
  close(fd);  // the mapping keeps the file
  if (!failed.empty()) {
    munmap(base, reserved);
    return Status::Error(path + ": " + failed);
  }
  madvise(bytes, static_cast<size_t>(size), MADV_SEQUENTIAL);
  g_last_path_size = std::min(path.size(), sizeof(g_last_path));
  std::memcpy(g_last_path, path.data(), g_last_path_size);
  return std::unique_ptr<MappedFile>(new MappedFile(bytes, size, reserved));
}

MappedFile::~MappedFile() { munmap(data_, reserved_); }

void MappedFile::Release(uint64_t begin, uint64_t end) const {
  const uint64_t page = PageSize();
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end > begin) madvise(data_ + begin, static_cast<size_t>(end - begin), MADV_DONTNEED);
}

}  // namespace gpuscope::base
