#include "session/categories.h"

#include <fstream>
#include <iterator>
#include <string>
#include <utility>

namespace gpuscope::session {

base::StatusOr<std::shared_ptr<const analysis::CategoryRules>> CategoryRulesFor(
    const CommonOptions& common) {
  if (common.categories.empty()) return analysis::BuiltInCategoryRules();
  const std::string& path = common.categories;
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!in && !in.eof())
    return base::Status::Error(path +
                               ": cannot read the category table (--categories takes a "
                               "file in the form `gpuscope help categories` shows)");
  auto parsed = analysis::ParseCategoryRules(text);
  if (!parsed.ok())
    return base::Status::Error(path + ": not a category table: " + parsed.status().message() +
                               " (see gpuscope help categories for the form)");
  parsed->source = path;
  return std::make_shared<const analysis::CategoryRules>(std::move(*parsed));
}

}  // namespace gpuscope::session
