#pragma once
// RenderHtmlReport: one self-contained HTML page (gpuscope's own CSS and JS inlined, no network)
// that draws the report data - the JSON built by the cli's report command. The page, style and
// script are the files in src/output/report/, compiled in.

#include <string>
#include <string_view>

namespace gpuscope::output {

// `data_json` is embedded verbatim (with "</" escaped so no string can close the script tag).
std::string RenderHtmlReport(std::string_view data_json, std::string_view title);

}  // namespace gpuscope::output
