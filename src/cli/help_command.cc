// `gpuscope help [TOPIC]`: the analyze rules (docs/findings.md is the markdown output), the
// formats gpuscope reads and writes (from the importer and writer registries), the roofline's
// models and the words the outputs use; without a topic, the list of topics.

#include <cstdio>
#include <string>

#include "base/text.h"
#include "cli/commands.h"
#include "import/registry.h"
#include "output/text_table.h"
#include "render/export.h"
#include "render/help_view.h"
#include "render/terms.h"
#include "render/whatif_view.h"

namespace gpuscope::cli {
namespace {

// Prose for the terminal, wrapped to its width; other formats as they are.
std::string Fit(std::string text, const std::string& format) {
  return format == "table" ? base::WrapLongLines(text, output::TerminalWidth()) : text;
}

// The topics a render function writes, and whether their terminal text is wrapped to its width
// (the roofline's tables are not).
struct Topic {
  const char* name;
  std::string (*text)(const std::string& format);
  bool wrap;
};
const Topic kTopics[] = {
    {"terms", [](const std::string& f) { return render::TermsHelp(f); }, true},
    {"whatif", [](const std::string& f) { return render::WhatIfHelp(f); }, true},
    {"roofline", [](const std::string& f) { return render::RooflineHelp(f); }, false},
    {"problems", [](const std::string& f) { return render::ProblemsHelp(f); }, true},
    {"findings", [](const std::string& f) { return render::FindingsHelp(f); }, true},
    {"categories", [](const std::string& f) { return render::CategoriesHelp(f); }, false},
};

}  // namespace

CommandBody AddHelpCommand(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  app.add_option("topic", *topic, "What to explain (without one: the list of topics)")
      ->check(CLI::IsMember(
          {"categories", "findings", "formats", "problems", "roofline", "terms", "whatif"}));
  app.add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"table", "markdown", "json", "csv"}));
  return [topic, format]() -> base::StatusOr<int> {  // the lambda owns the option storage
    if (topic->empty()) {
      std::fputs(
          "gpuscope help TOPIC [--format table|markdown|json|csv]: the topics\n"
          "  categories the kernel categories and the rules that decide them\n"
          "  findings  every analyze rule: definition, limits, defaults, how its fix is priced\n"
          "  formats   the formats gpuscope reads (recognised by content) and writes\n"
          "  problems  the recoverable problems counted while reading a trace, and what was done\n"
          "  roofline  the work models (FLOPs and bytes per op) and the device peaks\n"
          "  terms     every word the outputs use (verdicts, critical path, idle causes, ...)\n"
          "  whatif    the scenarios gpuscope whatif replays, and what the replay assumes\n"
          "Each command's options: gpuscope COMMAND --help\n",
          stdout);
      return 0;
    }
    for (const Topic& t : kTopics) {
      if (*topic != t.name) continue;
      std::string text = t.text(*format);
      std::fputs((t.wrap ? Fit(std::move(text), *format) : text).c_str(), stdout);
      return 0;
    }
    std::vector<render::FormatEntry> formats;
    for (const auto& importer : import::Importers()) {
      formats.push_back({true, std::string(importer.name), "", std::string(importer.description)});
    }
    for (const auto& writer : render::Writers()) {
      formats.push_back({false, std::string(writer.name), std::string(writer.names),
                         std::string(writer.description)});
    }
    std::fputs(render::FormatsHelp(formats, *format).c_str(), stdout);
    return 0;
  };
}

}  // namespace gpuscope::cli
