#pragma once
// The tracers `gpuscope run` can put a program under, one class each: the PyTorch profiler
// (injected through sitecustomize.py), rocprofv3 (AMD) and Nsight Systems (NVIDIA). A backend
// says how to launch the program so that its trace lands in a work directory, and where the
// trace is afterwards; run_command.cc does the rest (output name, conversion, --stats/--analyze).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/spawn.h"

namespace gpuscope::cli {

// The program's short name for the default trace file (gpuscope-<name>-<time>.rpd): the script
// of "python x.py", the module of "python -m pkg.mod", the interpreter for "python -c CODE" (never
// the code), else the executable's name; only letters, digits, '.', '_' and '-' (others become
// '_'), at most 40 characters, "program" when nothing is left.
std::string DefaultTraceStem(const std::vector<std::string>& cmd);

struct RunSettings {
  double delay_s = 0,
         duration_s = 0;  // profile a window of the run (0: from the start / to the end)
};

// The command to run (the program, or the tracer wrapping it) and the environment it gets.
struct Launch {
  std::vector<std::string> argv;
  Environment env;
};

class RunBackend {
 public:
  virtual ~RunBackend() = default;
  virtual std::string_view name() const = 0;
  // Whether `auto` picks this backend for `cmd` on this machine.
  virtual bool Usable(const std::vector<std::string>& cmd) const = 0;
  // Before the program runs: an error saying what to do when this backend cannot run with
  // `settings` here (its tool not installed, a window the tool cannot express).
  virtual base::Status Check(const RunSettings& settings) const;
  // Output names in the tracer's own format, copied as written (anything else is converted).
  virtual bool IsNativeOutput(const std::string& out) const = 0;
  // How to run `cmd` so that the trace is written under `dir`.
  virtual Launch Prepare(const std::vector<std::string>& cmd, const RunSettings& settings,
                         const std::string& dir) const = 0;
  // After the program exits: the trace files under `dir` (any export step done), largest first.
  virtual std::vector<std::string> Collect(const std::string& dir) const = 0;
  // Keeps what a user of the tracer expects beside `out` (the .nsys-rep for the GUI).
  virtual void KeepBeside(const std::string& dir, const std::string& out) const;
  // What to say when the program wrote no trace.
  virtual std::string NoTraceHint() const;
};

// Every backend, in the order `auto` tries them: rocprofv3, nsys, torch.
const std::vector<std::unique_ptr<RunBackend>>& RunBackends();

// The backend named `name`, or the first usable one for `auto`; nullptr when none fits.
const RunBackend* PickRunBackend(std::string_view name, const std::vector<std::string>& cmd);

}  // namespace gpuscope::cli
