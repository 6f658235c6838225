#include "cli/run_backends.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/temp_dir.h"

namespace gpuscope::cli {
namespace run_backends_test {  // this file's helpers, apart in a unity build
namespace {

namespace fs = std::filesystem;

// PATH set to an empty directory for the test's lifetime: no rocprofv3, no nsys.
class EmptyPath {
 public:
  EmptyPath() : dir_(base::TempDir::Create("gpuscope-path").value()) {
    if (const char* p = std::getenv("PATH")) old_ = p;
    setenv("PATH", dir_.path().c_str(), 1);
  }
  ~EmptyPath() { setenv("PATH", old_.c_str(), 1); }
  const std::string& dir() const { return dir_.path(); }

 private:
  base::TempDir dir_;
  std::string old_;
};

TEST(RunBackends, AutoPicksTheTracerOnPathElseTorchForPython) {
  EmptyPath path;
  EXPECT_EQ(PickRunBackend("auto", {"python3", "x.py"})->name(), "torch");
  EXPECT_EQ(PickRunBackend("auto", {"./serve.py"})->name(), "torch");
  EXPECT_EQ(PickRunBackend("auto", {"./a.out"}), nullptr) << "no tracer for a non-Python program";
  // A stand-in rocprofv3 on PATH wins, as on an AMD machine.
  std::string tool = path.dir() + "/rocprofv3";
  std::ofstream(tool) << "#!/bin/sh\n";
  fs::permissions(tool, fs::perms::owner_all);
  EXPECT_EQ(PickRunBackend("auto", {"python3", "x.py"})->name(), "rocprofv3");
  EXPECT_EQ(PickRunBackend("nsys", {"./a.out"})->name(), "nsys")
      << "a named backend is taken as asked";
}

TEST(RunBackends, NativeOutputsAreTheTracersOwnFormats) {
  EXPECT_TRUE(PickRunBackend("torch", {"python3"})->IsNativeOutput("t.json.gz"));
  EXPECT_FALSE(PickRunBackend("torch", {"python3"})->IsNativeOutput("t.rpd"));
  EXPECT_TRUE(PickRunBackend("rocprofv3", {"x"})->IsNativeOutput("run.db"));
  EXPECT_TRUE(PickRunBackend("nsys", {"x"})->IsNativeOutput("report.sqlite"));
}

TEST(RunBackends, WrappingTracersRunTheProgramAfterTheirOptions) {
  Launch rocprof = PickRunBackend("rocprofv3", {"x"})->Prepare({"./a.out", "-n", "3"}, {}, "/w");
  EXPECT_EQ(rocprof.argv, (std::vector<std::string>{
                              "rocprofv3", "--kernel-trace", "--memory-copy-trace",
                              "--hip-runtime-trace", "--marker-trace", "--output-format", "rocpd",
                              "-d", "/w", "-o", "run", "--", "./a.out", "-n", "3"}));
  Launch nsys = PickRunBackend("nsys", {"x"})->Prepare({"python3", "x.py"}, {}, "/w");
  EXPECT_EQ(nsys.argv, (std::vector<std::string>{"nsys", "profile", "-t", "cuda,nvtx,osrt",
                                                 "--force-overwrite", "true", "-o", "/w/report",
                                                 "python3", "x.py"}));
  EXPECT_TRUE(rocprof.env.empty() && nsys.env.empty()) << "the environment is left as it is";
}

TEST(RunBackends, TorchChainsPythonPathAndFindsTheLargestTraceFirst) {
  auto work = base::TempDir::Create("gpuscope-backend-test");
  ASSERT_TRUE(work.ok());
  const RunBackend* torch = PickRunBackend("torch", {"python3", "x.py"});
  setenv("PYTHONPATH", "/user/site", 1);
  Launch l = torch->Prepare({"python3", "x.py"}, {2.5, 10}, work->path());
  unsetenv("PYTHONPATH");
  EXPECT_EQ(l.argv, (std::vector<std::string>{"python3", "x.py"}));
  auto env = [&](const std::string& k) {
    for (const auto& [key, value] : l.env) {
      if (key == k) return value;
    }
    return std::string("(unset)");
  };
  EXPECT_EQ(env("PYTHONPATH"), work->path() + ":/user/site");
  EXPECT_EQ(env("GPUSCOPE_DELAY_S").substr(0, 3), "2.5");
  EXPECT_TRUE(fs::exists(work->path() + "/sitecustomize.py"));
  std::ofstream(work->path() + "/trace-1.json") << "{}";
  std::ofstream(work->path() + "/trace-2.json") << "{\"larger\": true}";
  std::ofstream(work->path() + "/other.json") << "{}";
  std::vector<std::string> found = torch->Collect(work->path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(fs::path(found[0]).filename(), "trace-2.json");
}

TEST(TempDir, RemovedWithItsFilesWhenItGoesAway) {
  std::string path;
  {
    auto dir = base::TempDir::Create("gpuscope-tempdir-test");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    std::ofstream(path + "/f") << "x";
    ASSERT_TRUE(fs::exists(path + "/f"));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(DefaultTraceStem, NamesTheScriptModuleOrInterpreterNeverCode) {
  EXPECT_EQ(DefaultTraceStem({"python3", "examples/infer.py", "--n", "3"}), "infer");
  EXPECT_EQ(DefaultTraceStem({"/usr/bin/python3", "-u", "-W", "ignore", "x.py"}), "x");
  EXPECT_EQ(DefaultTraceStem({"python3", "-m", "vllm.entrypoints.api_server"}),
            "vllm.entrypoints.api_server");
  EXPECT_EQ(DefaultTraceStem({"python3", "-c", "import sys; print(1)"}), "python3");
  EXPECT_EQ(DefaultTraceStem({"python3.11", "-c", "x"}), "python3.11");
  EXPECT_EQ(DefaultTraceStem({"./build/vector add"}), "vector_add");
  EXPECT_EQ(DefaultTraceStem({"python", "my script;rm -rf.py"}), "my_script_rm_-rf");
  EXPECT_EQ(DefaultTraceStem({std::string(100, 'a')}).size(), 40u);
  EXPECT_EQ(DefaultTraceStem({"..."}), "program");
}

}  // namespace
}  // namespace run_backends_test
}  // namespace gpuscope::cli
