#include "base/files.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

namespace gpuscope::base {

Status CheckInputPath(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Status::Ok();  // the opener says what is missing
  if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return Status::Ok();
  const char* what = S_ISFIFO(st.st_mode)   ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return Status::Error(path + ": " + what +
                       ", not a trace file; give the trace file, or - to read it from standard "
                       "input (cat trace.json | gpuscope stats -)");
}

Status EnsureParentDirectory(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    return Status::Error(parent.string() + ": cannot create the directory for " + path + " (" +
                         ec.message() + ")");
  }
  return Status::Ok();
}

}  // namespace gpuscope::base
