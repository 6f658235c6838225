#include "base/temp_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace gpuscope::base {

StatusOr<TempDir> TempDir::Create(const std::string& prefix) {
  // $TMPDIR when set (a user whose /tmp is small points it elsewhere), else /tmp.
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env && *env ? env : "/tmp";
  std::string pattern = dir + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    return Status::Error("cannot create a temporary directory in " + dir +
                         "; check its space and permissions (or set TMPDIR)");
  return TempDir(std::string(buf.data()));
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gpuscope::base
