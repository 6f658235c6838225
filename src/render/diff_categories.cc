// diff's kernel categories: GPU time by category before and after, with the kernels behind each
// change (analysis/diff/diff.h, CategoryDiff).

#include <cstdlib>

#include "base/short_name.h"
#include "base/text.h"
#include "output/text_table.h"
#include "render/diff_view.h"

namespace gpuscope::render {
namespace {

std::string Signed(int64_t ns) {
  std::string out = ns > 0 ? "+" : ns < 0 ? "-" : "";
  out += base::FormatDuration(std::llabs(ns));
  return out;
}

}  // namespace

std::string CategoryDiffText(const analysis::DiffReport& r, size_t width, bool full_names) {
  std::string out = "\nGPU time by kernel category (gpuscope help categories):\n\n";
  if (r.categories.empty()) return out + "(no GPU time in either run)\n";
  for (const auto& c : r.categories) {
    std::string pct = c.total_before > 0 ? " (" +
                                               Pct(100.0 * static_cast<double>(c.delta()) /
                                                   static_cast<double>(c.total_before)) +
                                               ")"
                                         : "";
    out += base::StrFormat(
        "  %-14s %10s -> %-10s %s%s\n", std::string(analysis::CategoryName(c.category)).c_str(),
        base::FormatDuration(c.total_before).c_str(), base::FormatDuration(c.total_after).c_str(),
        Signed(c.delta()).c_str(), pct.c_str());
    for (const auto& k : c.top) {
      if (k.delta() == 0) continue;
      const size_t room = width > 30 ? width - 30 : 40;
      out += base::StrFormat("      %12s  %s\n", Signed(k.delta()).c_str(),
                             (full_names ? k.name : base::ShortenName(k.name, room)).c_str());
    }
  }
  return out;
}

void CategoryDiffJson(output::JsonWriter& w, const analysis::DiffReport& r) {
  w.Key("categories").BeginArray();
  for (const auto& c : r.categories) {
    w.BeginObject().Key("category").String(analysis::CategoryName(c.category));
    w.Key("calls").BeginArray().Uint(c.calls_before).Uint(c.calls_after).EndArray();
    w.Key("total_ns").BeginArray().Int(c.total_before).Int(c.total_after).EndArray();
    w.Key("top_kernels").BeginArray();
    for (const auto& k : c.top) {
      w.BeginObject().Key("name").String(k.name).Key("status").String(k.status);
      w.Key("total_ns").BeginArray().Int(k.total_before).Int(k.total_after).EndArray();
      w.EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
}

std::vector<analysis::NamedDiff> CategoryDiffRows(const analysis::DiffReport& r) {
  std::vector<analysis::NamedDiff> rows;
  for (const auto& c : r.categories) {
    analysis::NamedDiff d;
    d.name = std::string(analysis::CategoryName(c.category));
    d.status = c.total_before == 0 ? "added" : c.total_after == 0 ? "removed" : "changed";
    d.calls_before = c.calls_before, d.calls_after = c.calls_after;
    d.total_before = c.total_before, d.total_after = c.total_after;
    rows.push_back(std::move(d));
  }
  return rows;
}

}  // namespace gpuscope::render
