// `gpuscope help findings|formats`: the analyze rules (docs/findings.md is the markdown output)
// and the formats gpuscope reads and writes, from the importer and writer registries.

#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "import/registry.h"
#include "render/export.h"
#include "render/help_view.h"

namespace gpuscope::cli {

CommandBody AddHelpCommand(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  app.add_option("topic", *topic,
                 "What to explain: findings (the analyze rules), formats (read and written) or "
                 "roofline (work models and device peaks)")
      ->required()
      ->check(CLI::IsMember({"findings", "formats", "roofline"}));
  app.add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"table", "markdown", "json", "csv"}));
  return [topic, format]() -> base::StatusOr<int> {  // the lambda owns the option storage
    if (*topic == "roofline") {
      std::fputs(render::RooflineHelp(*format).c_str(), stdout);
      return 0;
    }
    if (*topic == "findings") {
      std::fputs(render::FindingsHelp(*format).c_str(), stdout);
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
