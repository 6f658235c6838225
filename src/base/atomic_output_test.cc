#include "base/atomic_output.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/temp_dir.h"

namespace gpuscope::base {
namespace atomic_output_test {  // this file's helpers, apart in a unity build
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(AtomicOutput, ReplacesTheTargetOnlyWhenCommitted) {
  auto dir = TempDir::Create("gpuscope-atomic-test").value();
  std::string target = dir.path() + "/out.json.gz";
  Write(target, "before");
  std::string temp;
  {
    auto out = AtomicOutput::Begin(target).value();
    temp = out.temp_path();
    EXPECT_TRUE(temp.ends_with(".json.gz")) << temp;  // writers dispatch on the ending
    EXPECT_EQ(fs::path(temp).parent_path(), fs::path(target).parent_path());
    Write(temp, "half");
  }  // abandoned: a failed write
  EXPECT_EQ(Read(target), "before");
  EXPECT_FALSE(fs::exists(temp));
  auto out = AtomicOutput::Begin(target).value();
  Write(out.temp_path(), "after");
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_EQ(Read(target), "after");
  EXPECT_FALSE(fs::exists(out.temp_path()));
  EXPECT_EQ(fs::directory_iterator(dir.path())->path(), target);  // nothing else left
}

TEST(AtomicOutput, RefusesSpecialFilesDirectoriesAndInputs) {
  auto dir = TempDir::Create("gpuscope-atomic-test").value();
  std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto r = AtomicOutput::Begin(fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a FIFO"), std::string::npos);
  EXPECT_FALSE(AtomicOutput::Begin(dir.path()).ok());
  EXPECT_NE(AtomicOutput::Begin("/dev/null").status().message().find("character device"),
            std::string::npos);
  std::string input = dir.path() + "/trace.json";
  Write(input, "trace");
  std::string link = dir.path() + "/link.json";
  fs::create_symlink(input, link);
  auto same = AtomicOutput::Begin(link, {input});
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.status().message().find("is the input"), std::string::npos);
  EXPECT_EQ(Read(input), "trace");
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A link to a file that is no input: the link is replaced, what it points to is kept.
  std::string other = dir.path() + "/other.json";
  Write(other, "other");
  std::string link2 = dir.path() + "/link2.json";
  fs::create_symlink(other, link2);
  auto out = AtomicOutput::Begin(link2, {input}).value();
  Write(out.temp_path(), "new");
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_EQ(Read(other), "other");
  EXPECT_EQ(Read(link2), "new");
}

TEST(AtomicOutput, ATerminatedWriteLeavesNoTemporaryFile) {
  auto dir = TempDir::Create("gpuscope-atomic-test").value();
  std::string target = dir.path() + "/out.rpd";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto out = AtomicOutput::Begin(target);
    std::string temp = out.ok() ? out->temp_path() : "";
    if (write(fds[1], temp.c_str(), temp.size()) < 0) _exit(3);
    close(fds[1]);
    raise(SIGTERM);
    _exit(4);  // not reached
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_GT(n, 0);
  std::string temp(buf, static_cast<size_t>(n));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_FALSE(fs::exists(temp)) << temp;
  EXPECT_FALSE(fs::exists(target));
}

}  // namespace
}  // namespace atomic_output_test
}  // namespace gpuscope::base
