#pragma once
// ByteSource: a forward-only stream of bytes from a trace file, plain or gzip-compressed.
// Importers read through it in chunks so that no file is ever held whole in memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuscope::base {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes into `dst`. Returns the number read; 0 means the end.
  // On a read or decompression error returns -1 and error() says what broke.
  virtual long long Read(char* dst, size_t capacity) = 0;
  // Repositions a plain file; compressed sources cannot seek and return false.
  virtual bool Seek(uint64_t offset) = 0;
  virtual bool seekable() const = 0;
  // Total size when known (plain files), else 0.
  virtual uint64_t size() const = 0;
  const std::string& error() const { return error_; }

 protected:
  std::string error_;
};

// What the first bytes of a file say about it.
struct FileSniff {
  bool gzip = false;
  bool zstd = false;
  bool sqlite = false;
  bool tar = false;   // a tar archive (plain or inside gzip)
  std::string head;   // first bytes of the (decompressed) content, up to 64 KiB, without a BOM
  std::string error;  // why decompression stopped early, if it did
  // SQLite files: the names of their tables and views (filled by the importer registry, which
  // opens the database once so that importers recognise their schema, not their extension).
  std::set<std::string, std::less<>> sqlite_objects;
  bool Has(std::string_view object) const { return sqlite_objects.count(object) > 0; }
};

// Opens `path` for streaming; gzip is detected from its magic bytes, not from the extension.
// Fails with a one-line message naming the file when it is missing or unreadable.
StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);

// Reads the start of `path` (decompressing gzip) to let importers recognise their format.
StatusOr<FileSniff> SniffFile(const std::string& path);

// Wraps a sequential source so that reading (and inflating) runs on a background thread,
// ahead of the consumer. Used for gzip input, where inflate is half the work.
std::unique_ptr<ByteSource> MakeReadAheadSource(std::unique_ptr<ByteSource> inner);

}  // namespace gpuscope::base
