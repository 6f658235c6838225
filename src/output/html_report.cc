#include "output/html_report.h"

#include "output/report_charts_js.h"
#include "output/report_css.h"
#include "output/report_html.h"
#include "output/report_js.h"
#include "output/report_kit_js.h"

namespace gpuscope::output {
namespace {

// Replaces the one occurrence of `marker` in `page` (the template is ours: each marker is there
// once).
void Fill(std::string& page, std::string_view marker, std::string_view with) {
  auto at = page.find(marker);
  if (at != std::string::npos) page.replace(at, marker.size(), with);
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string RenderHtmlReport(std::string_view data_json, std::string_view title) {
  std::string data;
  data.reserve(data_json.size() + data_json.size() / 50);
  for (char c : data_json) {
    // Every '<' (JSON has them only inside strings) becomes "\u003c", the same string to
    // JSON.parse: no name can close the data block ("</script") or change how the browser
    // reads it ("<!--<script").
    if (c == '<') {
      data += "\\u003c";
      continue;
    }
    data += c;
  }
  std::string page(kReportHtml);
  // Fill in order of appearance, each after the previous text, so a marker-like string inside
  // the inserted CSS/JS/data is never matched.
  Fill(page, "__TITLE__", HtmlEscape(title));
  Fill(page, "/*__CSS__*/", kReportCss);
  auto data_at = page.find("__DATA__");
  if (data_at != std::string::npos) page.replace(data_at, 8, data);
  auto js_at = page.find("/*__JS__*/", data_at == std::string::npos ? 0 : data_at + data.size());
  // One script: the kit, then the views that use it.
  if (js_at != std::string::npos) {
    page.replace(js_at, 10, std::string(kReportKitJs) + "\n" + kReportJs + "\n" + kReportChartsJs);
  }
  return page;
}

}  // namespace gpuscope::output
