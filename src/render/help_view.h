#pragma once
// `gpuscope help TOPIC` rendered: the analyze rules (from analysis/findings/registry.h;
// docs/findings.md is the markdown form) and the formats gpuscope reads and writes (from the
// registries).

#include <string>
#include <string_view>
#include <vector>

namespace gpuscope::render {

// format: table, markdown, json or csv.
std::string FindingsHelp(std::string_view format);

struct FormatEntry {
  bool reads = true;  // an importer; else a writer
  std::string name, files, description;
};

// `help roofline`: the work models' formulas and the device peaks with their sources (from
// analysis/work/work_models.h and analysis/work/device_peaks.h; docs/roofline.md is the markdown
// form). format: table, markdown, json or csv (csv: the devices).
std::string RooflineHelp(std::string_view format);

// `help categories`: the kernel categories and the rules of the built-in table
// (analysis/work/categories.tsv; docs/categories.md is the markdown form). format: table,
// markdown, json or csv (csv: the rules).
std::string CategoriesHelp(std::string_view format);

// `help problems`: every kind of recoverable problem the importers, the validator and the linker
// count (model/problem_kinds.h; docs/problems.md is the markdown form).
std::string ProblemsHelp(std::string_view format);

// format: table, csv, markdown or json.
std::string FormatsHelp(const std::vector<FormatEntry>& formats, std::string_view format);

}  // namespace gpuscope::render
