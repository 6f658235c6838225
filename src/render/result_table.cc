#include "render/result_table.h"

#include <algorithm>
#include <cassert>
#include <map>

#include "base/short_name.h"
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

size_t ResultTable::BaseRoom(const std::vector<size_t>& order, size_t limit) const {
  size_t need = 0;
  for (size_t c : order) {
    if (!columns_[c].flexible) continue;
    // Each base name with the bracket after it; a base two different names share, with room
    // for where they differ.
    std::map<std::string, std::string, std::less<>> first;  // base -> its first name
    for (size_t r = 0; r < Count(limit); ++r) {
      const std::string& name = Row(r)[c].s();
      const std::string_view base = base::BaseName(name);
      auto [at, added] = first.emplace(std::string(base), name);
      const bool shared = !added && at->second != name;
      const size_t room = base::DisplayWidth(base) + (shared ? kDifferRoom : 1);
      need = std::max(need, std::min(base::DisplayWidth(name), room));
    }
  }
  return std::min(need, kBaseRoom);
}

std::string ResultTable::TextGivingWay(const std::vector<size_t>& order, size_t width, size_t limit,
                                       size_t floor) const {
  // The name column's width in a rendered table of the columns `kept`.
  auto name_width = [&](const std::string& out, const std::vector<size_t>& kept) {
    std::vector<size_t> widths = RuleWidths(out);
    for (size_t k = 0; k < kept.size() && k < widths.size(); ++k)
      if (columns_[kept[k]].flexible) return widths[k];
    return size_t{0};
  };
  const size_t need = BaseRoom(order, limit);
  std::string fitted;
  for (Layout l : {Layout{3, false, floor}, Layout{3, true, floor}, Layout{1, true, floor},
                   Layout{0, true, floor}}) {
    std::string out = Text(order, order, width, true, limit, l);
    if (TotalWidth(RuleWidths(out)) > width) continue;
    if (name_width(out, order) >= need) return out;
    if (fitted.empty()) fitted = std::move(out);  // fits, the base names cut: try fewer digits
  }
  // The last duration columns left out (a summary's StdDev, Max, Min, Med), at least two kept,
  // until the base names are whole.
  std::vector<size_t> kept = order;
  std::string left_out;
  for (;;) {
    size_t durations = 0, last = kept.size();
    for (size_t k = 0; k < kept.size(); ++k)
      if (columns_[kept[k]].show == Show::kDuration) ++durations, last = k;
    if (durations <= 2 || last == kept.size()) return fitted;
    std::string header = columns_[kept[last]].header;
    header = header.substr(0, header.find(" ({unit})"));
    left_out = header + (left_out.empty() ? "" : ", " + left_out);
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(last));
    std::string out = Text(order, kept, width, true, limit, Layout{0, true, floor});
    if (TotalWidth(RuleWidths(out)) > width) continue;
    fitted = out + "(" + left_out + " left out at " + std::to_string(width) +
             " columns; --full-names shows them)\n";
    if (name_width(out, kept) >= need) return fitted;
  }
}

std::string ResultTable::Text(size_t width, bool fit, size_t limit) const {
  std::vector<size_t> order = terminal_order_;
  if (order.empty()) {
    for (size_t c = 0; c < columns_.size(); ++c) order.push_back(c);
  }
  std::erase_if(order, [&](size_t c) { return columns_[c].header.empty(); });
  const bool named =
      std::any_of(order.begin(), order.end(), [&](size_t c) { return columns_[c].flexible; });
  // The name keeps kNameFloor columns (half a narrow terminal) while the numbers give way.
  const size_t floor = named ? std::min(kNameFloor, width / 2) : 16;
  if (fit && named) {
    if (std::string out = TextGivingWay(order, width, limit, floor); !out.empty()) return out;
  }
  // Durations with 3 decimals (ns in us), fewer when that is what it takes to fit the width.
  std::string out;
  for (int decimals : {3, 1, 0}) {
    out = Text(order, order, width, fit, limit, Layout{decimals, named, floor});
    if (!fit || TotalWidth(RuleWidths(out)) <= width) return out;
  }
  // Still too wide (many columns): the columns in parts that fit, one under the other, each led
  // by the row's key - its name (the flexible column, given kNameFloor columns), else the first.
  std::vector<size_t> widths = RuleWidths(out);
  if (widths.size() != order.size() || order.size() < 3) return out;
  size_t key = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (columns_[order[k]].flexible) key = k;
  }
  const size_t key_width = columns_[order[key]].flexible ? floor : widths[key];
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
    out += Text(order, parts[p], width, fit, limit, Layout{0, false, floor});
  }
  return out;
}

std::string ResultTable::Text(const std::vector<size_t>& all, const std::vector<size_t>& order,
                              size_t width, bool fit, size_t limit, Layout layout) const {
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
  bool unit_shown = false;
  for (size_t c : order) {
    std::string header = columns_[c].header;
    if (auto p = header.find(" ({unit})"); p != std::string::npos && layout.compact && unit_shown)
      header.erase(p);
    if (auto p = header.find("{unit}"); p != std::string::npos)
      header.replace(p, 6, unit.name), unit_shown = true;
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
          cells.push_back(unit.Format(v.i(), layout.decimals));
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
  return t.Render(width, fit, layout.name_floor);
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
