#include "base/gzip_inflate.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/atomic_output.h"
#include "base/byte_source.h"

namespace gpuscope::base {

bool IsGzipFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  size_t n = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

StatusOr<std::string> InflateToTemp(const std::string& path) {
  GPUSCOPE_ASSIGN_OR_RETURN(auto src, OpenByteSource(path));
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/gpuscope-db-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0)
    return Status::Error(path + ": cannot create a temporary file in " + tmpl + " to inflate it");
  std::string out(name.data());
  RemoveOnSignal(out);  // SIGINT or SIGTERM while inflating leaves no copy behind
  std::vector<char> buf(1 << 20);
  for (;;) {
    long long n = src->Read(buf.data(), buf.size());
    if (n < 0) {
      close(fd);
      unlink(out.c_str());
      ForgetOnSignal(out);
      return Status::Error(path + ": " + src->error() + "; the compressed database cannot be read");
    }
    if (n == 0) break;
    for (long long done = 0; done < n;) {
      ssize_t w = write(fd, buf.data() + done, static_cast<size_t>(n - done));
      if (w <= 0) {
        close(fd);
        unlink(out.c_str());
        ForgetOnSignal(out);
        return Status::Error(path + ": cannot write the inflated copy to " + out + " (disk full?)");
      }
      done += w;
    }
  }
  close(fd);
  return out;
}

}  // namespace gpuscope::base
