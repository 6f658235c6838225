#pragma once
// MappedFile: a plain file mapped read-only, followed by `padding` readable zero bytes, so a
// reader that stops at a NUL byte (JsonCursor) can parse it in place, with no copy into a
// window. Pages behind the reader are handed back (Release) so that resident memory stays a
// few MiB per reader, not the file (mapped pages count in a process's RSS).
//
// The file's last partial page is copied, not mapped, so the bytes after its end stay zeros if
// it grows meanwhile (a trace still being written: the bytes read are those of the size seen at
// Open). The limit: a file that shrinks while mapped, or whose pages cannot be read (a failing
// disk, a network file system), makes the pages past that point unreadable: the process gets
// SIGBUS, which the command line turns into one line naming the file (InstallBusErrorLine).

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
  // Turns SIGBUS into one line on stderr naming the file mapped last and exit code 2 (for a
  // program that reads one mapped file at a time: the command line; not the Python module).
  static void InstallBusErrorLine();
  // Whether the process's address space is limited (`ulimit -v`): a mapping takes the file's
  // size of it, a window 256 KiB, so a limited process reads through the window.
  static bool AddressSpaceLimited();

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
