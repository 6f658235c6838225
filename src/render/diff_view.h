#pragma once
// `gpuscope diff` rendered: the side-by-side report for the terminal, the JSON contract and one
// CSV row per matched name; returned as text to print.

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/diff/diff.h"
#include "output/json_writer.h"

namespace gpuscope::render {

struct DiffView {
  std::string before, after;
  bool exact_names = false;
  bool full_names = false;
  size_t top = 15;  // rows per table, 0 = all
};

std::string DiffText(const analysis::DiffReport& r, const DiffView& a);
std::string DiffJson(const analysis::DiffReport& r, const DiffView& a);
std::string DiffCsv(const analysis::DiffReport& r);

// The categories' part of each form (render/diff_categories.cc).
std::string CategoryDiffText(const analysis::DiffReport& r, size_t width, bool full_names);
void CategoryDiffJson(output::JsonWriter& w, const analysis::DiffReport& r);
// The categories as NamedDiff rows (name: the category), for the CSV's "categories" table.
std::vector<analysis::NamedDiff> CategoryDiffRows(const analysis::DiffReport& r);

// A signed percentage: "+12.3%".
std::string Pct(double v);

}  // namespace gpuscope::render
