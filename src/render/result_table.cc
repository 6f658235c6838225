#include "render/result_table.h"

#include <algorithm>
#include <cassert>

#include "base/text.h"
#include "output/csv_writer.h"
#include "output/text_table.h"
#include "render/units.h"

namespace gpuscope::render {
namespace {

// One overload for each of Cell::Value's alternatives, for std::visit.
template <typename... F>
struct Overloads : F... {
  using F::operator()...;
};
template <typename... F>
Overloads(F...) -> Overloads<F...>;  // clang 14 deduces no aggregate's arguments by itself

std::string CsvValue(const Cell& c, int decimals) {
  return std::visit(Overloads{[](std::monostate) { return std::string(); },
                              [](int64_t v) { return std::to_string(v); },
                              [](uint64_t v) { return std::to_string(v); },
                              [&](double v) { return base::FormatFixed(v, decimals); },
                              // A CSV opened in a terminal or a sheet stays inert.
                              [](const std::string& v) { return base::EscapeControl(v); }},
                    c.value());
}

void JsonValue(output::JsonWriter& w, const Cell& c) {
  std::visit(Overloads{[&](std::monostate) { w.Null(); }, [&](int64_t v) { w.Int(v); },
                       [&](uint64_t v) { w.Uint(v); }, [&](double v) { w.Double(v); },
                       [&](const std::string& v) { w.String(v); }},
             c.value());
}

}  // namespace

const std::string& Cell::s() const {
  static const std::string kNone;
  const auto* s = std::get_if<std::string>(&v_);
  return s ? *s : kNone;
}

void ResultTable::AddRow(std::vector<Cell> cells) {
  assert(cells.size() == columns_.size() && !make_);
  rows_.push_back(std::move(cells));
}

void ResultTable::SetRows(size_t count, RowMaker make) {
  assert(rows_.empty());
  made_rows_ = count;
  make_ = std::move(make);
}

const std::vector<Cell>& ResultTable::Row(size_t r) const {
  if (!make_) return rows_[r];
  scratch_.clear();
  make_(r, scratch_);
  assert(scratch_.size() == columns_.size());
  return scratch_;
}

namespace {

// The display widths of a rendered table's columns, from its rule line ("----  ---  -----").
std::vector<size_t> RuleWidths(const std::string& rendered) {
  size_t a = rendered.find('\n') + 1, b = rendered.find('\n', a);
  std::vector<size_t> widths;
  for (size_t p = a; p < b;) {
    size_t q = std::min(rendered.find(' ', p), b);
    widths.push_back(q - p);
    p = rendered.find_first_not_of(' ', q);
    if (p == std::string::npos || p > b) break;
  }
  return widths;
}

size_t TotalWidth(const std::vector<size_t>& widths) {
  size_t total = 0;
  for (size_t w : widths) total += w;
  return total + (widths.empty() ? 0 : 2 * (widths.size() - 1));
}

}  // namespace

std::string ResultTable::Text(size_t width, bool fit, size_t limit) const {
  std::vector<size_t> order = terminal_order_;
  if (order.empty()) {
    for (size_t c = 0; c < columns_.size(); ++c) order.push_back(c);
  }
  std::erase_if(order, [&](size_t c) { return columns_[c].header.empty(); });
  // Durations with 3 decimals (ns in us), fewer when that is what it takes to fit the width.
  std::string out;
  for (int decimals : {3, 1, 0}) {
    out = Text(order, order, width, fit, limit, decimals);
    if (!fit || TotalWidth(RuleWidths(out)) <= width) return out;
  }
  // Still too wide (many columns): the columns in parts that fit, one under the other, each led
  // by the row's key - its name (the flexible column, given up to 24 columns), else the first.
  std::vector<size_t> widths = RuleWidths(out);
  if (widths.size() != order.size() || order.size() < 3) return out;
  size_t key = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (columns_[order[k]].flexible) key = k;
  }
  const size_t key_width =
      columns_[order[key]].flexible ? std::min<size_t>(widths[key], 24) : widths[key];
  std::vector<std::vector<size_t>> parts{{order[key]}};
  size_t used = key_width;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == key) continue;
    if (used + 2 + widths[k] > width && parts.back().size() > 1) {
      parts.push_back({order[key]});
      used = key_width;
    }
    parts.back().push_back(order[k]);
    used += 2 + widths[k];
  }
  out.clear();
  for (size_t p = 0; p < parts.size(); ++p) {
    if (p) out += '\n';
    out += Text(order, parts[p], width, fit, limit, 0);
  }
  return out;
}

std::string ResultTable::Text(const std::vector<size_t>& all, const std::vector<size_t>& order,
                              size_t width, bool fit, size_t limit, int decimals) const {
  const size_t n = Count(limit);
  int64_t largest = 0;  // over every shown column, so that the parts of a table share a unit
  for (size_t r = 0; r < n; ++r) {
    const std::vector<Cell>& row = Row(r);
    for (size_t c : all)
      if (columns_[c].show == Show::kDuration) largest = std::max(largest, row[c].i());
  }
  const Unit unit = PickUnit(largest);
  output::TextTable t;
  using A = output::TextTable::Align;
  for (size_t c : order) {
    std::string header = columns_[c].header;
    if (auto p = header.find("{unit}"); p != std::string::npos) header.replace(p, 6, unit.name);
    t.AddColumn(header, columns_[c].show == Show::kText ? A::kLeft : A::kRight,
                columns_[c].flexible);
  }
  for (size_t r = 0; r < n; ++r) {
    std::vector<std::string> cells;
    const std::vector<Cell>& row = Row(r);
    for (size_t c : order) {
      const Cell& v = row[c];
      if (v.kind() == Cell::Kind::kNull) {
        cells.push_back("n/a");
        continue;
      }
      if (v.kind() == Cell::Kind::kText) {  // shown as is
        cells.push_back(v.s());
        continue;
      }
      switch (columns_[c].show) {
        case Show::kText:
        case Show::kTextRight:
          cells.push_back(CsvValue(v, 3));
          break;
        case Show::kCount:
          cells.push_back(base::FormatCount(v.u()));
          break;
        case Show::kDuration:
          cells.push_back(unit.Format(v.i(), decimals));
          break;
        case Show::kFixed1:
          cells.push_back(base::FormatFixed(v.d(), 1));
          break;
        case Show::kFixed3:
          cells.push_back(base::FormatFixed(v.d(), 3));
          break;
        case Show::kNumber:
          cells.push_back(base::FormatFixed(
              v.d(), v.d() == static_cast<double>(static_cast<int64_t>(v.d())) ? 0 : 3));
          break;
      }
    }
    t.AddRow(std::move(cells));
  }
  return t.Render(width, fit);
}

std::string ResultTable::Csv(size_t limit, std::FILE* stream) const {
  output::CsvWriter csv;
  if (stream) csv.StreamTo(stream);
  std::vector<std::string> header;
  for (const auto& col : columns_) {
    if (!col.key.empty())
      header.push_back(!col.csv_key.empty() ? col.csv_key : col.key.substr(col.key.find('.') + 1));
  }
  csv.Row(header);
  for (size_t r = 0, n = Count(limit); r < n; ++r) {
    std::vector<std::string> cells;
    const std::vector<Cell>& row = Row(r);
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (!columns_[c].key.empty()) cells.push_back(CsvValue(row[c], columns_[c].csv_decimals));
    }
    csv.Row(cells);
  }
  return csv.str();
}

void ResultTable::Json(output::JsonWriter& w, size_t limit) const {
  w.BeginArray();
  for (size_t r = 0, n = Count(limit); r < n; ++r) {
    const std::vector<Cell>& row = Row(r);
    w.BeginObject();
    for (size_t c = 0; c < columns_.size();) {
      const std::string& key = columns_[c].key;
      if (key.empty()) {
        ++c;
        continue;
      }
      size_t dot = key.find('.');
      if (dot == std::string::npos) {
        w.Key(key);
        JsonValue(w, row[c]);
        ++c;
        continue;
      }
      // A nested object: the run of columns with the same prefix, left out when all absent.
      std::string group = key.substr(0, dot + 1);
      size_t end = c;
      bool any = false;
      while (end < columns_.size() && columns_[end].key.starts_with(group)) {
        any |= row[end].kind() != Cell::Kind::kNull;
        ++end;
      }
      if (any) {
        w.Key(key.substr(0, dot)).BeginObject();
        for (size_t k = c; k < end; ++k) {
          w.Key(columns_[k].key.substr(dot + 1));
          JsonValue(w, row[k]);
        }
        w.EndObject();
      }
      c = end;
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace gpuscope::render
