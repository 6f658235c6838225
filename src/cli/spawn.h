#pragma once
// Running the profiled program: fork/exec with extra environment, signals sent to gpuscope
// forwarded to it, a status line on a terminal, and the shell-style exit code.

#include <string>
#include <utility>
#include <vector>

namespace gpuscope::cli {

using Environment = std::vector<std::pair<std::string, std::string>>;

// Runs argv (PATH searched) with `env` added; returns its exit code, 128 + signal if it was
// killed, 127 if it could not be started.
int Spawn(const std::vector<std::string>& argv, const Environment& env);

// Whether `tool` is an executable on PATH.
bool OnPath(const std::string& tool);

// Whether `program` can be started: an executable file when it names a path (has a '/'), else
// an executable on PATH.
bool Runnable(const std::string& program);

}  // namespace gpuscope::cli
