// `gpuscope run [options] -- CMD ARGS...`: runs a program unchanged under a tracer (the PyTorch
// profiler injected through sitecustomize, rocprofv3, or nsys), forwards signals, returns the
// program's exit code, writes the trace and optionally prints stats and findings.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/byte_sink.h"
#include "base/text.h"
#include "cli/commands.h"
#include "render/export.h"
#include "cli/load.h"
#include "cli/torch_hook.h"

namespace gpuscope::cli {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::vector<std::string> cmd;
  std::string out;
  std::string backend = "auto";
  bool stats = false;
  bool analyze = false;
  double delay = 0, duration = 0;
};

volatile pid_t g_child = -1;

// Signals sent to gpuscope by another process (kill) go on to the program; the terminal's
// Ctrl-C already reached the program through the shared process group.
void Forward(int sig, siginfo_t* info, void*) {
  if (g_child > 0 && (info == nullptr || info->si_code == SI_USER || info->si_code == SI_QUEUE)) kill(g_child, sig);
}

bool OnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p(path);
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

bool IsPython(const std::vector<std::string>& cmd) {
  std::string exe = fs::path(cmd[0]).filename().string();
  return exe.rfind("python", 0) == 0 || (cmd[0].size() > 3 && cmd[0].substr(cmd[0].size() - 3) == ".py") ||
         exe == "torchrun" || exe == "accelerate";
}

// The program's short name for the default output file: the script of "python x.py", else the executable.
std::string ProgramName(const std::vector<std::string>& cmd) {
  std::string name = fs::path(cmd[0]).stem().string();
  if (fs::path(cmd[0]).filename().string().rfind("python", 0) == 0) {
    for (size_t i = 1; i < cmd.size(); ++i) {
      if (cmd[i] == "-m" && i + 1 < cmd.size()) return cmd[i + 1];
      if (!cmd[i].empty() && cmd[i][0] != '-') return fs::path(cmd[i]).stem().string();
    }
  }
  return name;
}

std::string Timestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

// Runs argv with extra environment, forwarding signals; returns the shell-style exit code.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env) {
  pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "gpuscope: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  struct sigaction sa {};
  sa.sa_sigaction = Forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  bool tty = isatty(STDERR_FILENO);
  auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (tty) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "\r[gpuscope] %s running, %.1f s ", fs::path(argv[0]).filename().c_str(), s);
    }
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  g_child = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

base::Status Gzip(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  auto out = base::ByteSink::Create(to);
  if (!in || !out.ok()) return base::Status::Error(to + ": cannot write the compressed trace");
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) (*out)->Write(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return (*out)->Close();
}

// The backend's own trace format: written as it is (or gzipped); any other output is converted.
bool IsNative(const std::string& backend, const std::string& out) {
  if (backend == "torch") return out.ends_with(".json") || out.ends_with(".json.gz");
  return out.ends_with(backend == "rocprofv3" ? ".db" : ".sqlite");
}

}  // namespace

CommandBody AddRunCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-o,--output", a->out, "Trace to write: .rpd (the default: ./gpuscope-<program>-<time>.rpd), the "
                                        "backend's own format (torch .json/.json.gz, rocprofv3 .db, nsys .sqlite), or "
                                        "anything `gpuscope convert` writes");
  app.add_option("--backend", a->backend, "Tracer")->check(CLI::IsMember({"auto", "torch", "rocprofv3", "nsys"}))
      ->capture_default_str();
  app.add_flag("--stats", a->stats, "Print the stats tables at the end");
  app.add_flag("--analyze", a->analyze, "Print the findings at the end");
  app.add_option("--delay", a->delay, "Start profiling after this many seconds (torch backend; uses SIGALRM)");
  app.add_option("--duration", a->duration, "Profile this many seconds, then write the trace (torch backend)");
  app.add_option("command", a->cmd, "The program and its arguments, after --")->required()->expected(-1);
  return [a, &common]() -> base::StatusOr<int> {
    std::string backend = a->backend;
    if (backend == "auto") {
      backend = OnPath("rocprofv3") ? "rocprofv3" : OnPath("nsys") ? "nsys" : IsPython(a->cmd) ? "torch" : "";
      if (backend.empty()) {
        return base::Status::Error("no tracer for " + a->cmd[0] + ": rocprofv3 (ROCm) and nsys (NVIDIA) are not on PATH, "
                                   "and it is not a Python program (the torch backend profiles Python programs "
                                   "that use PyTorch)");
      }
    }
    std::string out = a->out.empty() ? "gpuscope-" + ProgramName(a->cmd) + "-" + Timestamp() + ".rpd" : a->out;
    bool gz = out.ends_with(".json.gz");
    bool native = IsNative(backend, out);
    std::string export_format;
    if (!native) {  // refused before the program runs when the name says no format we write
      auto f = render::ExportFormat(out, "");
      if (!f.ok()) return f.status();
      export_format = *f;
    }
    char tmpl[] = "/tmp/gpuscope-run-XXXXXX";
    if (!mkdtemp(tmpl)) return base::Status::Error("cannot create a temporary directory in /tmp");
    std::string tmp = tmpl;
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> argv = a->cmd;
    if (backend == "torch") {
      std::ofstream(tmp + "/sitecustomize.py") << TorchSiteCustomize();
      const char* old = std::getenv("PYTHONPATH");
      env = {{"PYTHONPATH", tmp + (old && *old ? ":" + std::string(old) : "")},
             {"GPUSCOPE_HOOK_DIR", tmp},
             {"GPUSCOPE_TRACE_DIR", tmp},
             {"GPUSCOPE_DELAY_S", std::to_string(a->delay)},
             {"GPUSCOPE_DURATION_S", std::to_string(a->duration)}};
    } else if (backend == "rocprofv3") {
      argv = {"rocprofv3", "--kernel-trace", "--memory-copy-trace", "--hip-runtime-trace", "--marker-trace",
              "--output-format", "rocpd", "-d", tmp, "-o", "run", "--"};
      argv.insert(argv.end(), a->cmd.begin(), a->cmd.end());
    } else {
      argv = {"nsys", "profile", "-t", "cuda,nvtx,osrt", "--force-overwrite", "true", "-o", tmp + "/report"};
      argv.insert(argv.end(), a->cmd.begin(), a->cmd.end());
    }
    int rc = Spawn(argv, env);
    // Find what the tracer wrote.
    std::string trace;
    std::vector<std::string> traces;
    std::error_code ec;
    if (backend == "nsys" && fs::exists(tmp + "/report.nsys-rep", ec)) {
      Spawn({"nsys", "export", "--type", "sqlite", "--force-overwrite", "true", "--output", tmp + "/report.sqlite",
             tmp + "/report.nsys-rep"}, {});
    }
    for (auto it = fs::recursive_directory_iterator(tmp, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::string f = it->path().string();
      bool mine = backend == "torch" ? f.ends_with(".json") && it->path().filename().string().rfind("trace-", 0) == 0
                  : backend == "rocprofv3" ? f.ends_with("_results.db") : f.ends_with(".sqlite");
      if (mine) traces.push_back(f);
    }
    if (traces.empty()) {
      std::fprintf(stderr, "gpuscope: %s exited with %d and no trace was written (%s)\n", a->cmd[0].c_str(), rc,
                   backend == "torch" ? "did it import torch? the torch backend profiles PyTorch programs"
                                      : ("the " + backend + " run produced no output").c_str());
      fs::remove_all(tmp, ec);
      return rc ? rc : 2;
    }
    // Several processes (DataLoader workers do not write; torchrun ranks do): keep the largest as
    // the trace, the others beside it.
    std::sort(traces.begin(), traces.end(), [](const std::string& x, const std::string& y) {
      std::error_code e;
      return fs::file_size(x, e) > fs::file_size(y, e);
    });
    trace = traces.front();
    std::optional<model::Trace> converted;  // kept for --stats/--analyze (a CSV folder cannot be re-read)
    if (!native) {
      auto t = LoadTrace(trace, common);
      if (!t.ok()) return t.status();
      auto files = render::ExportTrace(*t, out, export_format);
      if (!files.ok()) return files.status();
      converted.emplace(std::move(*t));
    } else if (gz) {
      GPUSCOPE_RETURN_IF_ERROR(Gzip(trace, out));
    } else {
      fs::copy_file(trace, out, fs::copy_options::overwrite_existing, ec);
      if (ec) return base::Status::Error(out + ": cannot write the trace (" + ec.message() + ")");
    }
    for (size_t i = 1; i < traces.size(); ++i) {
      std::string extra = out + "." + fs::path(traces[i]).stem().string() + fs::path(traces[i]).extension().string();
      fs::copy_file(traces[i], extra, fs::copy_options::overwrite_existing, ec);
      std::fprintf(stderr, "gpuscope: another process's trace: %s\n", extra.c_str());
    }
    // nsys: the .nsys-rep opens in the Nsight Systems GUI; keep it beside the trace.
    if (backend == "nsys" && fs::exists(tmp + "/report.nsys-rep", ec)) {
      std::string rep = fs::path(out).replace_extension(".nsys-rep").string();
      fs::copy_file(tmp + "/report.nsys-rep", rep, fs::copy_options::overwrite_existing, ec);
      if (!ec) std::fprintf(stderr, "gpuscope: Nsight Systems report kept: %s\n", rep.c_str());
    }
    fs::remove_all(tmp, ec);
    std::fprintf(stderr, "gpuscope: trace written to %s (program exit code %d)\n", out.c_str(), rc);
    if (a->stats || a->analyze) {
      std::fflush(stderr);
      auto t = converted ? base::StatusOr<model::Trace>(std::move(*converted)) : LoadTrace(out, common);
      if (!t.ok()) {
        std::fprintf(stderr, "gpuscope: %s\n", t.status().message().c_str());
        return rc ? rc : 2;
      }
      if (a->stats) PrintStatsTables(*t, out);
      if (a->stats && a->analyze) std::printf("\n");
      if (a->analyze) PrintAnalyzeReport(*t, out);
      std::fflush(stdout);
    }
    return rc;
  };
}

}  // namespace gpuscope::cli
