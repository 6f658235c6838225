#pragma once
// The subcommands. Each registers its options on the CLI11 app and returns the exit code
// of its run; none prints errors itself beyond what it returns through Status.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/option_checks.h"
#include "model/trace.h"
#include "session/options.h"

namespace gpuscope::cli {

// What a command's trace argument may be, for its --help (one text for every command): the
// argument's line, and the footer of every command that reads traces (kept within 100 columns).
inline constexpr const char* kTraceHelp =
    "Trace file, a folder of one run, or a folder of one job's per-rank traces";
inline constexpr const char* kFormatsFooter =
    "Reads: PyTorch profiler / Kineto JSON (.json, .json.gz), rocmProfileData .rpd, rocprofv3\n"
    "(rocpd .db, CSV, JSON), legacy rocprof (results.db/.csv/.json, rpl_data), Nsight Systems\n"
    "SQLite export, gpuscope CSV; the format is recognised from the content (gpuscope help "
    "formats).";

using session::CommonOptions;

// --format: the terminal's table, CSV or JSON; `help` is what the option says it sets.
inline CLI::Option* AddFormatOption(CLI::App& app, std::string* format,
                                    const char* help = "Output format") {
  return app.add_option("--format", *format, help)->check(OneOf({"table", "csv", "json"}));
}

// --capture (repeatable): traces of the same program's graph captures; `use` ends the help.
inline CLI::Option* AddCaptureOption(CLI::App& app, std::vector<std::string>* captures,
                                     const std::string& use) {
  return app
      .add_option("--capture", *captures, "A trace of the graph captures of the same program" + use)
      ->check(CLI::ExistingPath);
}

// A command's body: returns the exit code, or a Status whose message main prints (exit 2).
using CommandBody = std::function<base::StatusOr<int>()>;

CommandBody AddInfoCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddStatsCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddAnalyzeCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddDiffCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddHelpCommand(CLI::App& app);
// `gpuscope help TOPIC --format F` as text (the Python module and its MCP server serve it too);
// an error naming the topics for an unknown one.
base::StatusOr<std::string> HelpTopic(const std::string& topic, const std::string& format);
CommandBody AddRunCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddConvertCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddReportCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddRooflineCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddWhatIfCommand(CLI::App& app, const CommonOptions& common);
CommandBody AddMemoryCommand(CLI::App& app, const CommonOptions& common);

// The default terminal output of `stats` and `analyze`, for `gpuscope run --stats --analyze`.
void PrintStatsTables(const model::Trace& trace, const std::string& path, bool full_names);
void PrintAnalyzeReport(const model::Trace& trace, const std::string& path, bool full_names);

}  // namespace gpuscope::cli
