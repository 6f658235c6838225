#include "cli/run_backends.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <utility>

#include "base/text.h"
#include "cli/torch_hook.h"

namespace gpuscope::cli {

namespace {

std::string SafeFileStem(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (out.size() == 40) break;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '-')) out.erase(0, 1);
  return out.empty() ? "program" : out;
}

}  // namespace

std::string DefaultTraceStem(const std::vector<std::string>& cmd) {
  if (cmd.empty()) return "program";
  const std::filesystem::path exe(cmd[0]);
  if (exe.filename().string().rfind("python", 0) == 0) {
    for (size_t i = 1; i < cmd.size(); ++i) {
      const std::string& a = cmd[i];
      if (a == "-m" && i + 1 < cmd.size()) return SafeFileStem(cmd[i + 1]);
      if (a == "-c" || a == "-") break;  // code on the command line or stdin: the interpreter
      if (a == "-W" || a == "-X" || a == "-Q") {  // options that take the next word
        ++i;
        continue;
      }
      if (!a.empty() && a[0] != '-') return SafeFileStem(std::filesystem::path(a).stem().string());
    }
  }
  return SafeFileStem(exe.filename().string());
}

namespace {

namespace fs = std::filesystem;

// Files under `dir` for which `want` says yes, largest first (the main process's trace; other
// processes' are kept beside it).
std::vector<std::string> FindTraces(const std::string& dir,
                                    const std::function<bool(const fs::path&)>& want) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (want(it->path())) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end(), [](const std::string& x, const std::string& y) {
    std::error_code e;
    return fs::file_size(x, e) > fs::file_size(y, e);
  });
  return out;
}

bool IsPython(const std::vector<std::string>& cmd) {
  std::string exe = fs::path(cmd[0]).filename().string();
  return exe.rfind("python", 0) == 0 || cmd[0].ends_with(".py") || exe == "torchrun" ||
         exe == "accelerate";
}

// The PyTorch profiler, injected with a sitecustomize.py on PYTHONPATH (chained to any other).
class TorchBackend : public RunBackend {
 public:
  std::string_view name() const override { return "torch"; }
  bool Usable(const std::vector<std::string>& cmd) const override { return IsPython(cmd); }
  bool IsNativeOutput(const std::string& out) const override {
    return out.ends_with(".json") || out.ends_with(".json.gz");
  }
  Launch Prepare(const std::vector<std::string>& cmd, const RunSettings& s,
                 const std::string& dir) const override {
    std::ofstream(dir + "/sitecustomize.py") << TorchSiteCustomize();
    std::string pythonpath = dir;  // ours first, then any the user had (our hook chains to theirs)
    if (const char* old = std::getenv("PYTHONPATH"); old && *old)
      pythonpath.append(":").append(old);
    return {cmd,
            {{"PYTHONPATH", pythonpath},
             {"GPUSCOPE_HOOK_DIR", dir},
             {"GPUSCOPE_TRACE_DIR", dir},
             {"GPUSCOPE_DELAY_S", std::to_string(s.delay_s)},
             {"GPUSCOPE_DURATION_S", std::to_string(s.duration_s)}}};
  }
  std::vector<std::string> Collect(const std::string& dir) const override {
    return FindTraces(dir, [](const fs::path& p) {
      return p.extension() == ".json" && p.filename().string().starts_with("trace-");
    });
  }
  std::string NoTraceHint() const override {
    return "did it import torch? the torch backend profiles PyTorch programs";
  }
};

// A profiler that wraps the program (`tool OPTIONS... program ARGS...`), usable when on PATH;
// its own output files end in `native_suffix`; `install` says how to get it.
class WrappingBackend : public RunBackend {
 public:
  WrappingBackend(std::string tool, std::string native_suffix, std::string install)
      : tool_(std::move(tool)),
        native_suffix_(std::move(native_suffix)),
        install_(std::move(install)) {}
  std::string_view name() const override { return tool_; }
  bool Usable(const std::vector<std::string>&) const override { return OnPath(tool_); }
  base::Status Check(const RunSettings&) const override {
    if (OnPath(tool_)) return base::Status::Ok();
    return base::Status::Error("run --backend " + tool_ + ": " + tool_ + " is not on PATH; " +
                               install_);
  }
  bool IsNativeOutput(const std::string& out) const override {
    return out.ends_with(native_suffix_);
  }
  Launch Prepare(const std::vector<std::string>& cmd, const RunSettings& settings,
                 const std::string& dir) const override {
    Launch l{{tool_}, {}};
    std::vector<std::string> options = ToolArgs(dir, settings);
    l.argv.insert(l.argv.end(), options.begin(), options.end());
    l.argv.insert(l.argv.end(), cmd.begin(), cmd.end());
    return l;
  }

 protected:
  // The tool's options before the program, writing the trace under `dir` and profiling the
  // window of `settings`.
  virtual std::vector<std::string> ToolArgs(const std::string& dir,
                                            const RunSettings& settings) const = 0;

 private:
  std::string tool_, native_suffix_, install_;
};

// rocprofv3 with the kernel, copy, HIP runtime and marker traces, in its rocpd database format.
class Rocprofv3Backend : public WrappingBackend {
 public:
  Rocprofv3Backend()
      : WrappingBackend("rocprofv3", ".db",
                        "install ROCm's rocprofiler-sdk (ROCm 6.2 or later; it is "
                        "/opt/rocm/bin/rocprofv3: add /opt/rocm/bin to PATH), or use --backend "
                        "torch for a PyTorch program") {}
  std::vector<std::string> ToolArgs(const std::string& dir, const RunSettings& s) const override {
    std::vector<std::string> a = {"--kernel-trace",
                                  "--memory-copy-trace",
                                  "--hip-runtime-trace",
                                  "--marker-trace",
                                  "--output-format",
                                  "rocpd",
                                  "-d",
                                  dir,
                                  "-o",
                                  "run"};
    if (s.delay_s > 0 || s.duration_s > 0) {
      // DELAY:TIME:REPEAT in ms, once; without --duration a time past any run's end (11 days).
      auto ms = [](double sec) { return std::to_string(std::llround(sec * 1000)); };
      a.insert(a.end(),
               {"--collection-period",
                ms(s.delay_s) + ":" + (s.duration_s > 0 ? ms(s.duration_s) : "1000000000") + ":1",
                "--collection-period-unit", "msec"});
    }
    a.push_back("--");
    return a;
  }
  std::vector<std::string> Collect(const std::string& dir) const override {
    return FindTraces(dir, [](const fs::path& p) { return p.string().ends_with("_results.db"); });
  }
};

// Nsight Systems: CUDA, NVTX and OS runtime traces, exported to SQLite after the run.
class NsysBackend : public WrappingBackend {
 public:
  NsysBackend()
      : WrappingBackend("nsys", ".sqlite",
                        "install Nsight Systems (the CUDA toolkit's nsight-systems package, or "
                        "developer.nvidia.com/nsight-systems; add its bin folder to PATH), or use "
                        "--backend torch for a PyTorch program") {}
  base::Status Check(const RunSettings& s) const override {
    GPUSCOPE_RETURN_IF_ERROR(WrappingBackend::Check(s));
    if (s.delay_s != std::floor(s.delay_s) || s.duration_s != std::floor(s.duration_s))
      return base::Status::Error(
          "run --backend nsys: nsys takes whole seconds for --delay and --duration");
    return base::Status::Ok();
  }
  std::vector<std::string> ToolArgs(const std::string& dir, const RunSettings& s) const override {
    std::vector<std::string> a = {"profile", "-t", "cuda,nvtx,osrt", "--force-overwrite", "true"};
    if (s.delay_s > 0) a.push_back("--delay=" + std::to_string(std::llround(s.delay_s)));
    if (s.duration_s > 0) a.push_back("--duration=" + std::to_string(std::llround(s.duration_s)));
    a.insert(a.end(), {"-o", dir + "/report"});  // the program follows the output name
    return a;
  }
  std::vector<std::string> Collect(const std::string& dir) const override {
    std::error_code ec;
    if (fs::exists(dir + "/report.nsys-rep", ec)) {
      Spawn({"nsys", "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
             dir + "/report.sqlite", dir + "/report.nsys-rep"},
            {});
    }
    return FindTraces(dir, [](const fs::path& p) { return p.extension() == ".sqlite"; });
  }
  void KeepBeside(const std::string& dir, const std::string& out) const override {
    // The .nsys-rep opens in the Nsight Systems GUI.
    std::error_code ec;
    if (!fs::exists(dir + "/report.nsys-rep", ec)) return;
    std::string rep = fs::path(out).replace_extension(".nsys-rep").string();
    fs::copy_file(dir + "/report.nsys-rep", rep, fs::copy_options::overwrite_existing, ec);
    if (!ec) std::fprintf(stderr, "gpuscope: Nsight Systems report kept: %s\n", rep.c_str());
  }
};

}  // namespace

base::Status RunBackend::Check(const RunSettings&) const { return base::Status::Ok(); }

void RunBackend::KeepBeside(const std::string&, const std::string&) const {}

std::string RunBackend::NoTraceHint() const {
  return "the " + std::string(name()) + " run produced no output";
}

const std::vector<std::unique_ptr<RunBackend>>& RunBackends() {
  static const auto* list = [] {
    auto* v = new std::vector<std::unique_ptr<RunBackend>>();
    v->push_back(std::make_unique<Rocprofv3Backend>());
    v->push_back(std::make_unique<NsysBackend>());
    v->push_back(std::make_unique<TorchBackend>());
    return v;
  }();
  return *list;
}

const RunBackend* PickRunBackend(std::string_view name, const std::vector<std::string>& cmd) {
  for (const auto& b : RunBackends()) {
    if (name == "auto" ? b->Usable(cmd) : b->name() == name) return b.get();
  }
  return nullptr;
}

}  // namespace gpuscope::cli
