#include "base/atomic_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "base/files.h"

namespace gpuscope::base {
namespace {

namespace fs = std::filesystem;

// Temporary files to remove on SIGINT/SIGTERM: a fixed table of C strings, so that the handler
// only reads memory and calls unlink (both async-signal-safe).
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];
std::mutex g_mu;
bool g_installed = false;

void OnSignal(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) unlink(g_paths[i]);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string What(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void RemoveOnSignal(const std::string& path) {
  if (path.size() >= kPathMax) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_installed) {
    // Only where nobody else handles the signal (gpuscope run forwards them to its program).
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_DFL) signal(sig, OnSignal);
    }
    g_installed = true;
  }
  for (int i = 0; i < kSlots; ++i) {
    if (!g_used[i].load()) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      g_used[i].store(true);
      return;
    }
  }
}

void ForgetOnSignal(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load() && path == g_paths[i]) {
      g_used[i].store(false);
      return;
    }
  }
}

Status CheckOutputPath(const std::string& target, const std::vector<std::string>& inputs) {
  if (target.empty()) return Status::Error("an empty output name; give a file name");
  if (target == "-") return Status::Ok();  // standard output
  struct stat st {};
  if (lstat(target.c_str(), &st) == 0) {
    struct stat to = st;
    if (S_ISLNK(st.st_mode) && stat(target.c_str(), &to) != 0) to = st;  // dangling: replaced
    if (!S_ISREG(to.st_mode) && !S_ISLNK(to.st_mode)) {
      return Status::Error(target + ": is " + What(to) +
                           "; gpuscope writes regular files only and never replaces one of "
                           "these - give a file name");
    }
  }
  struct stat out {};
  if (stat(target.c_str(), &out) != 0) return Status::Ok();  // nothing there yet
  for (const auto& in : inputs) {
    struct stat ist {};
    if (in != "-" && stat(in.c_str(), &ist) == 0 && ist.st_dev == out.st_dev &&
        ist.st_ino == out.st_ino) {
      return Status::Error(target + ": is the input " + in +
                           "; writing there would destroy it - choose another output name");
    }
  }
  return Status::Ok();
}

StatusOr<AtomicOutput> AtomicOutput::Begin(const std::string& target,
                                           const std::vector<std::string>& inputs,
                                           const std::string& stdout_suffix) {
  GPUSCOPE_RETURN_IF_ERROR(CheckOutputPath(target, inputs));
  const bool to_stdout = target == "-";
  if (!to_stdout) GPUSCOPE_RETURN_IF_ERROR(EnsureParentDirectory(target));
  fs::path p(target);
  std::string name = p.filename().string();
  // The temporary name keeps the target's ending (".json.gz", ".rpd"): writers dispatch on it.
  size_t dot = name.find('.', 1);
  std::string suffix = to_stdout ? stdout_suffix : dot == std::string::npos ? "" : name.substr(dot);
  const char* tmpdir = std::getenv("TMPDIR");
  fs::path dir = to_stdout ? fs::path(tmpdir && *tmpdir ? tmpdir : "/tmp") : p.parent_path();
  std::string tmpl =
      (dir.empty() ? std::string() : dir.string() + "/") + ".gpuscope-tmp-XXXXXX" + suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return Status::Error(target + ": cannot create a file in its directory (" +
                         std::strerror(errno) + ")");
  }
  close(fd);
  AtomicOutput out;
  out.target_ = target;
  out.temp_ = buf.data();
  RemoveOnSignal(out.temp_);
  return out;
}

AtomicOutput::AtomicOutput(AtomicOutput&& o) noexcept
    : target_(std::move(o.target_)), temp_(std::move(o.temp_)), committed_(o.committed_) {
  o.temp_.clear();
  o.committed_ = true;
}

Status AtomicOutput::Commit() {
  if (to_stdout()) {
    // Unlinked once open: a reader that stops early (SIGPIPE, `| head`) leaves no file behind.
    std::FILE* in = std::fopen(temp_.c_str(), "rb");
    unlink(temp_.c_str());
    ForgetOnSignal(temp_);
    bool ok = in != nullptr;
    std::vector<char> buf(1 << 20);
    for (size_t n; ok && (n = std::fread(buf.data(), 1, buf.size(), in)) > 0;)
      ok = std::fwrite(buf.data(), 1, n, stdout) == n;
    if (in) std::fclose(in);
    ok = ok && std::fflush(stdout) == 0;
    int err = errno;
    committed_ = true;
    if (!ok)
      return Status::Error(std::string("-: cannot write to standard output (") +
                           std::strerror(err) + ")");
    return Status::Ok();
  }
  // The file gets the permissions a newly created file would (mkstemp makes it 0600).
  mode_t mask = umask(0);
  umask(mask);
  chmod(temp_.c_str(), 0666 & ~mask);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    return Status::Error(target_ + ": cannot put the written file in place (" +
                         std::strerror(errno) + ")");
  }
  ForgetOnSignal(temp_);
  committed_ = true;
  return Status::Ok();
}

AtomicOutput::~AtomicOutput() {
  if (!committed_ && !temp_.empty()) {
    unlink(temp_.c_str());
    ForgetOnSignal(temp_);
  }
}

}  // namespace gpuscope::base
