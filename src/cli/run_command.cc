// `gpuscope run [options] -- CMD ARGS...`: runs a program unchanged under a tracer (the PyTorch
// profiler injected through sitecustomize, rocprofv3, or nsys), forwards signals, returns the
// program's exit code, writes the trace and optionally prints stats and findings.

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/atomic_output.h"
#include "base/byte_sink.h"
#include "base/files.h"
#include "base/temp_dir.h"
#include "cli/commands.h"
#include "cli/run_backends.h"
#include "format/written_by.h"
#include "import/registry.h"
#include "render/export.h"
#include "session/load.h"

namespace gpuscope::cli {

using namespace session;  // NOLINT: the loading and the outputs this command wires
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::vector<std::string> cmd;
  std::string out;
  std::string backend = "auto";
  bool stats = false;
  bool analyze = false;
  bool full_names = false;
  double delay = 0, duration = 0;
};

std::string Timestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

base::Status Gzip(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  auto out = base::ByteSink::Create(to);
  if (!in || !out.ok()) return base::Status::Error(to + ": cannot write the compressed trace");
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0)
      (*out)->Write(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return (*out)->Close();
}

// Writes the trace the tracer left at `trace` to `out`: copied (gzipped for .json.gz) when `out`
// is in the tracer's own format, else converted with `export_format`; the converted model is
// kept for --stats/--analyze (a CSV folder cannot be read back as it was).
base::Status WriteOutput(const std::string& trace, const std::string& out, bool native,
                         const std::string& export_format, const CommonOptions& common,
                         std::optional<model::Trace>* converted) {
  if (!native) {
    GPUSCOPE_ASSIGN_OR_RETURN(model::Trace t, LoadTrace(trace, common));
    // The file says so, not "convert" of a temporary file.
    t.meta.properties[std::string(format::kExportedByProperty)] = "gpuscope run";
    GPUSCOPE_RETURN_IF_ERROR(render::ExportTrace(t, out, export_format).status());
    // Shown as what it now is (an .rpd says "rpd", as every later command reads it), not as the
    // tracer's format it was converted from.
    if (std::string written = import::FormatOf(out); !written.empty()) t.meta.format = written;
    converted->emplace(std::move(t));
    return base::Status::Ok();
  }
  GPUSCOPE_ASSIGN_OR_RETURN(auto file, base::AtomicOutput::Begin(out));
  if (out.ends_with(".json.gz")) {
    GPUSCOPE_RETURN_IF_ERROR(Gzip(trace, file.temp_path()));
  } else {
    std::error_code ec;
    fs::copy_file(trace, file.temp_path(), fs::copy_options::overwrite_existing, ec);
    if (ec) return base::Status::Error(out + ": cannot write the trace (" + ec.message() + ")");
  }
  return file.Commit();
}

}  // namespace

CommandBody AddRunCommand(CLI::App& app, const CommonOptions& common) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-o,--output", a->out,
                 "Trace to write: .rpd (the default: ./gpuscope-<program>-<time>.rpd), the "
                 "backend's own format (torch .json/.json.gz, rocprofv3 .db, nsys .sqlite), or "
                 "anything `gpuscope convert` writes");
  app.add_option("--backend", a->backend, "Tracer")
      ->check(OneOf({"auto", "torch", "rocprofv3", "nsys"}))
      ->capture_default_str();
  app.add_flag("--stats", a->stats, "Print the stats tables at the end");
  app.add_flag("--analyze", a->analyze, "Print the findings at the end");
  app.add_flag("--full-names", a->full_names,
               "Show names whole in --stats and --analyze instead of fitting them to the terminal");
  app.add_option("--delay", a->delay,
                 "Start profiling after this many seconds of the program's run (torch: uses "
                 "SIGALRM; nsys: whole seconds)")
      ->check(Finite(0, 1e6));
  app.add_option("--duration", a->duration,
                 "Profile this many seconds, then stop (the program runs on)")
      ->check(Finite(0, 1e6));
  app.add_option("command", a->cmd, "The program and its arguments, after --")
      ->required()
      ->expected(-1);
  return [a, &common]() -> base::StatusOr<int> {
    const RunBackend* backend = PickRunBackend(a->backend, a->cmd);
    if (!backend) {
      return base::Status::Error(
          "no tracer for " + a->cmd[0] +
          ": rocprofv3 (ROCm) and nsys (NVIDIA) are not on PATH, "
          "and it is not a Python program (the torch backend profiles Python programs "
          "that use PyTorch)");
    }
    const RunSettings settings{a->delay, a->duration};
    GPUSCOPE_RETURN_IF_ERROR(backend->Check(settings));
    if (!Runnable(a->cmd[0])) {
      return base::Status::Error("run: " + a->cmd[0] +
                                 ": no such program (not an executable file, not on PATH)");
    }
    std::string out = a->out.empty()
                          ? "gpuscope-" + DefaultTraceStem(a->cmd) + "-" + Timestamp() + ".rpd"
                          : a->out;
    const bool native = backend->IsNativeOutput(out);
    std::string export_format;
    if (!native) {  // refused before the program runs when the name says no format we write
      GPUSCOPE_ASSIGN_OR_RETURN(export_format, render::ExportFormat(out, ""));
    }
    if (export_format != "csv") GPUSCOPE_RETURN_IF_ERROR(base::CheckOutputPath(out, {}));
    GPUSCOPE_ASSIGN_OR_RETURN(base::TempDir work, base::TempDir::Create("gpuscope-run"));
    Launch launch = backend->Prepare(a->cmd, settings, work.path());
    int rc = Spawn(launch.argv, launch.env);
    std::vector<std::string> traces = backend->Collect(work.path());
    if (traces.empty()) {
      std::fprintf(stderr, "gpuscope: %s exited with %d and no trace was written (%s)\n",
                   a->cmd[0].c_str(), rc, backend->NoTraceHint().c_str());
      return rc ? rc : 2;
    }
    std::optional<model::Trace> converted;
    GPUSCOPE_RETURN_IF_ERROR(
        WriteOutput(traces.front(), out, native, export_format, common, &converted));
    // Several processes (DataLoader workers do not write; torchrun ranks do): the largest is
    // the trace, the others are kept beside it.
    for (size_t i = 1; i < traces.size(); ++i) {
      std::string extra = out + "." + fs::path(traces[i]).stem().string() +
                          fs::path(traces[i]).extension().string();
      std::error_code ec;
      fs::copy_file(traces[i], extra, fs::copy_options::overwrite_existing, ec);
      std::fprintf(stderr, "gpuscope: another process's trace: %s\n", extra.c_str());
    }
    backend->KeepBeside(work.path(), out);
    std::fprintf(stderr, "gpuscope: trace written to %s (program exit code %d)\n", out.c_str(), rc);
    if (a->stats || a->analyze) {
      std::fflush(stderr);
      auto t =
          converted ? base::StatusOr<model::Trace>(std::move(*converted)) : LoadTrace(out, common);
      if (!t.ok()) {
        std::fprintf(stderr, "gpuscope: %s\n", t.status().message().c_str());
        return rc ? rc : 2;
      }
      if (a->stats) PrintStatsTables(*t, out, a->full_names);
      if (a->stats && a->analyze) std::printf("\n");
      if (a->analyze) PrintAnalyzeReport(*t, out, a->full_names);
      std::fflush(stdout);
    }
    return rc;
  };
}

}  // namespace gpuscope::cli
