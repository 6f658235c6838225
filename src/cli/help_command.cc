// `gpuscope help [TOPIC]`: the analyze rules (docs/findings.md is the markdown output), the
// formats gpuscope reads and writes (from the importer and writer registries), the roofline's
// models, the event tables and the words the outputs use; without a topic, the list of topics
// (every topic of kTopics).

#include <cstdio>
#include <string>
#include <vector>

#include "base/text.h"
#include "cli/commands.h"
#include "import/registry.h"
#include "output/text_table.h"
#include "render/export.h"
#include "render/help_view.h"
#include "render/tables_help.h"
#include "render/terms.h"
#include "render/whatif_view.h"

namespace gpuscope::cli {
namespace {

// Prose for the terminal, wrapped to its width; other formats as they are.
std::string Fit(std::string text, const std::string& format) {
  return format == "table" ? base::WrapLongLines(text, output::TerminalWidth()) : text;
}

// The formats gpuscope reads and writes, from the importer and writer registries.
std::string Formats(const std::string& format) {
  std::vector<render::FormatEntry> formats;
  for (const auto& importer : import::Importers()) {
    formats.push_back({true, std::string(importer.name), "", std::string(importer.description)});
  }
  for (const auto& writer : render::Writers()) {
    formats.push_back({false, std::string(writer.name), std::string(writer.names),
                       std::string(writer.description)});
  }
  return render::FormatsHelp(formats, format);
}

// Every topic: what `help` lists, what the topic argument accepts, and the function writing it;
// whether its terminal text is wrapped to the width (the categories' text wraps itself).
struct Topic {
  const char* name;
  const char* what;
  std::string (*text)(const std::string& format);
  bool wrap;
};
const Topic kTopics[] = {
    {"categories", "the kernel categories and the rules that decide them",
     [](const std::string& f) { return render::CategoriesHelp(f); }, false},
    {"findings", "every analyze rule: definition, limits, defaults, how its fix is priced",
     [](const std::string& f) { return render::FindingsHelp(f); }, true},
    {"formats", "the formats gpuscope reads (recognised by content) and writes", &Formats, true},
    {"problems", "the recoverable problems counted while reading a trace, and what was done",
     [](const std::string& f) { return render::ProblemsHelp(f); }, true},
    {"roofline", "the work models (FLOPs and bytes per op) and the device peaks",
     [](const std::string& f) { return render::RooflineHelp(f); }, true},
    {"tables", "the event tables (Python, SQL queries): every column with its type and unit",
     [](const std::string& f) { return render::TablesHelp(f); }, true},
    {"terms", "every word the outputs use (verdicts, critical path, idle causes, ...)",
     [](const std::string& f) { return render::TermsHelp(f); }, true},
    {"whatif", "the scenarios gpuscope whatif replays, and what the replay assumes",
     [](const std::string& f) { return render::WhatIfHelp(f); }, true},
};

}  // namespace

CommandBody AddHelpCommand(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  std::vector<std::string> names;
  for (const Topic& t : kTopics) names.emplace_back(t.name);
  app.add_option("topic", *topic, "What to explain (without one: the list of topics)")
      ->check(OneOf(names));
  app.add_option("--format", *format, "Output format")
      ->check(OneOf({"table", "markdown", "json", "csv"}));
  const CLI::App* parent = app.get_parent();
  return [topic, format, parent]() -> base::StatusOr<int> {  // the lambda owns the option storage
    if (topic->empty()) {
      std::string list = "gpuscope COMMAND [options]: the commands\n";
      for (const CLI::App* c : parent->get_subcommands({}))
        list +=
            base::StrFormat("  %-10s %s\n", c->get_name().c_str(), c->get_description().c_str());
      list += "Each command's options and an example: gpuscope COMMAND --help\n\n";
      list += "gpuscope help TOPIC [--format table|markdown|json|csv]: the topics\n";
      for (const Topic& t : kTopics) list += base::StrFormat("  %-10s %s\n", t.name, t.what);
      std::fputs(Fit(list, "table").c_str(), stdout);
      return 0;
    }
    GPUSCOPE_ASSIGN_OR_RETURN(std::string text, HelpTopic(*topic, *format));
    std::fputs(text.c_str(), stdout);
    return 0;
  };
}

base::StatusOr<std::string> HelpTopic(const std::string& topic, const std::string& format) {
  std::vector<std::string> names;
  for (const Topic& t : kTopics) {
    if (topic == t.name) {
      std::string text = t.text(format);
      return t.wrap ? Fit(std::move(text), format) : text;
    }
    names.emplace_back(t.name);
  }
  std::string list, near = base::ClosestWord(topic, names);
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return base::Status::Error("help: no topic '" + topic + "' (topics: " + list + ")" +
                             (near.empty() ? "" : "; did you mean '" + near + "'?"));
}

}  // namespace gpuscope::cli
