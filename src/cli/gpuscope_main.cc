#include "cli/gpuscope_main.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "base/allocator_tuning.h"
#include "base/mapped_file.h"
#include "base/sqlite_db.h"
#include "base/text.h"
#include "cli/commands.h"
#include "session/categories.h"

namespace gpuscope::cli {
namespace {

// A command as `gpuscope --help` lists it (in this order): its name, one line on what it does,
// one example its help ends with, how its options are added, and whether it reads traces (then
// its help ends with the formats).
struct CommandSpec {
  const char* name;
  const char* what;
  const char* example;
  CommandBody (*add)(CLI::App&, const CommonOptions&);
  bool reads_traces;
};

CommandBody AddHelp(CLI::App& app, const CommonOptions&) { return AddHelpCommand(app); }

constexpr CommandSpec kCommands[] = {
    {"info", "What a trace holds: format, devices, span, counts, problems",
     "gpuscope info trace.json.gz", AddInfoCommand, true},
    {"stats", "Per-kernel, memory-operation, API and CPU-op summary tables",
     "gpuscope stats trace.json.gz --by kernels --top 10", AddStatsCommand, true},
    {"analyze", "Ranked findings: what slows the run, what it costs, where, the fix",
     "gpuscope analyze trace.json.gz --explain launch-bound", AddAnalyzeCommand, true},
    {"roofline", "Kernel efficiency: each op's FLOPs and bytes against the device's peaks",
     "gpuscope roofline trace.json.gz --device H100", AddRooflineCommand, true},
    {"whatif", "Replay the run with a change: faster kernels, copies or host, no syncs, graphs",
     "gpuscope whatif trace.json.gz --graphs", AddWhatIfCommand, true},
    {"memory", "GPU memory over time: the peak, who held it, growth step after step",
     "gpuscope memory trace.json.gz --top 5", AddMemoryCommand, true},
    {"diff", "Compare two runs (before / after a change); gate regressions in CI",
     "gpuscope diff before.json.gz after.json.gz --fail-if-slower 5", AddDiffCommand, true},
    {"convert", "Write a trace as Chrome/Perfetto JSON, .rpd or CSV tables",
     "gpuscope convert trace.json.gz -o trace.rpd", AddConvertCommand, true},
    {"report", "One self-contained HTML page: summary, findings, charts, timeline",
     "gpuscope report trace.json.gz -o report.html", AddReportCommand, true},
    {"run", "Profile a program unchanged: gpuscope run --stats --analyze -- python infer.py",
     "gpuscope run --stats --analyze -o run.rpd -- python infer.py", AddRunCommand, false},
    {"help", "Explain a topic: gpuscope help [findings | formats | roofline | terms | whatif]",
     "gpuscope help terms", AddHelp, false},
};

// The option names `app` accepts ("--format", "-o"), its parents' included.
std::vector<std::string> OptionNames(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* o : app->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& s : o->get_snames()) names.push_back("-" + s);
    }
  }
  return names;
}

// The trace a parsed command reads ("" if it has none): its first positional argument.
std::string TraceOperand(const CLI::App& command) {
  for (const char* name : {"trace", "before", "command"}) {
    const CLI::Option* o = command.get_option_no_throw(name);
    if (o != nullptr && o->count() > 0) return o->results().front();
  }
  return "";
}

// True when `a` names an option of `app` itself (a global one) that takes a value.
bool TakesValue(const CLI::App& app, const std::string& a) {
  if (a.size() < 2 || a[0] != '-') return false;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_items_expected_min() == 0) continue;
    for (const auto& l : o->get_lnames())
      if (a == "--" + l) return true;
    for (const auto& sn : o->get_snames())
      if (a == "-" + sn) return true;
  }
  return false;
}

bool LooksLikeOption(const std::string& a) {
  if (a.size() < 2 || a[0] != '-') return false;
  char c = a[1];
  return !(c >= '0' && c <= '9') && c != '.';  // not a negative number
}

// Typos CLI11 would report confusingly (an unknown command read as a missing one, an unknown
// option's value taken for the trace): one line naming the word, the nearest known one and where
// the list is. Returns "" when the command line has none. Words after "--" belong to `run`'s
// program and are not looked at.
std::string CheckWords(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
  const CLI::App* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a.find('=') == std::string::npos && TakesValue(app, a)) {
      ++i;  // a global option's value (`--time-unit s`, `--categories F`): not a command
      continue;
    }
    if (command == nullptr) {
      if (LooksLikeOption(a)) continue;  // global options and --help are CLI11's to judge
      for (const CLI::App* sub : app.get_subcommands({})) {
        if (sub->get_name() == a) command = sub;
      }
      if (command != nullptr) continue;
      std::string near = base::ClosestWord(a, commands);
      return "unknown command '" + a + "'" +
             (near.empty() ? "" : "; did you mean '" + near + "'?") +
             " Commands: " + base::JoinWords(commands) + " (gpuscope --help)";
    }
    if (!LooksLikeOption(a)) continue;
    std::string name = a.substr(0, a.find('='));
    if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);  // -ofile
    std::vector<std::string> known = OptionNames(command);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string near = base::ClosestWord(name, known);
    return command->get_name() + ": unknown option '" + name + "'" +
           (near.empty() ? "" : "; did you mean '" + near + "'?") + " (gpuscope " +
           command->get_name() + " --help lists its options)";
  }
  return "";
}

// Whatever was printed reached standard output, else one line and exit 2 (`> /dev/full`, a
// closed pipe's EIO): a result that was not written is no success.
int CheckStdout(int rc) {
  errno = 0;
  bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return rc;
  // errno tells why when the last flush failed; an earlier failed write left only the flag.
  std::fprintf(stderr, "gpuscope: -: cannot write to standard output (%s)\n",
               errno != 0 ? std::strerror(errno) : "a write failed");
  return 2;
}

}  // namespace

int Main(int argc, char** argv) {
  base::TuneAllocator();
  base::MappedFile::InstallBusErrorLine();
  CLI::App app{"gpuscope: GPU profiler front end and trace analyzer"};
  app.formatter(HelpFormatter());  // the commands added below inherit it
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpuscope 0.1.0");
  CommonOptions common;
  app.fallthrough();  // global options (--threads, --align-clocks) also after the command
  app.add_option("--threads", common.threads,
                 "Threads (default: one per core, at most 8); 1: parse, replay and price on one")
      ->check(WholeIn(0, 64));
  app.add_flag("--align-clocks", common.align_clocks,
               "Where GPU ops start before the calls that launched them (CPU and GPU clocks "
               "disagree), shift that GPU's events so none does (see `gpuscope info`)");
  app.add_flag("--merge", common.merge_runs,
               "A folder whose files hold different runs (hours or days apart) is refused; read "
               "it as one trace anyway");
  app.add_option("--time-unit", common.time_unit,
                 "The unit of a PyTorch/Chrome JSON trace's ts and dur when it is not the "
                 "format's microseconds (s, ms, us, ns); `info` says when the values look like "
                 "another unit")
      ->check(OneOf({"s", "ms", "us", "ns"}));
  double sqlite_budget = 0;
  app.add_option("--sqlite-budget", sqlite_budget,
                 "Seconds one query of an SQLite trace may take, per MB of the file (default: 3, "
                 "at least 5 s a query): a crafted database ends in one line instead of a hang")
      ->check(Finite(0.001, 1e6));
  app.add_option("--categories", common.categories,
                 "A kernel category table replacing the built-in one (the form: gpuscope help "
                 "categories)");
  std::vector<std::pair<CLI::App*, CommandBody>> commands;
  for (const CommandSpec& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.what);
    commands.emplace_back(sub, c.add(*sub, common));
    sub->footer(std::string("Example: ") + c.example +
                (c.reads_traces ? std::string("\n\n") + kFormatsFooter : ""));
  }
  if (argc == 1) {  // nothing asked: what there is to ask (a usage error all the same)
    std::fputs(app.help().c_str(), stdout);
    return CheckStdout(2);
  }
  if (std::string typo = CheckWords(app, argc, argv); !typo.empty()) {
    std::fprintf(stderr, "gpuscope: %s\n", typo.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "gpuscope: %s\n", base::OneLine(UserMessage(app, e)).c_str());
    return 2;
  }
  base::SetSqliteSecondsPerMb(sqlite_budget);
  // A category table that does not read is fatal before any trace is loaded.
  if (auto rules = session::CategoryRulesFor(common); !rules.ok()) {
    std::fprintf(stderr, "gpuscope: %s\n", base::OneLine(rules.status().message()).c_str());
    return 2;
  }
  base::StatusOr<int> rc = 2;
  for (auto& [sub, body] : commands) {
    if (!sub->parsed()) continue;
    // Running out of memory is one line naming what was being read, never an abort.
    try {
      rc = body();
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr,
                   "gpuscope: %s: out of memory while running '%s' (the trace needs more than "
                   "%s: free memory, raise the limit, or give a smaller window of the trace)\n",
                   base::EscapeControl(TraceOperand(*sub)).c_str(), sub->get_name().c_str(),
                   base::MemoryLimitText().c_str());
      return 2;
    }
  }
  if (!rc.ok()) {
    std::fprintf(stderr, "gpuscope: %s\n", base::OneLine(rc.status().message()).c_str());
    return 2;
  }
  return CheckStdout(*rc);
}

}  // namespace gpuscope::cli
