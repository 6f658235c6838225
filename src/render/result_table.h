#pragma once
// ResultTable: one table of results (rows of typed cells under named columns), the form every
// tabular result takes before it is shown. One piece of code renders it as an aligned terminal
// table, as CSV or as a JSON array of objects, so the three formats cannot drift apart.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "output/json_writer.h"

namespace gpuscope::render {

// A value: absent (null in JSON, empty in CSV, "n/a" in the terminal), an integer, a real or text.
class Cell {
 public:
  // The order of Value's alternatives.
  enum class Kind { kNull, kInt, kUint, kReal, kText };
  using Value = std::variant<std::monostate, int64_t, uint64_t, double, std::string>;

  Cell() = default;  // null
  static Cell Null() { return Cell(); }
  static Cell Int(int64_t v) { return Cell(v); }
  static Cell Uint(uint64_t v) { return Cell(v); }
  static Cell Real(double v) { return Cell(v); }
  static Cell Text(std::string v) { return Cell(std::move(v)); }
  // An integer where a negative value means "not known" (summary-only sources).
  static Cell IntOrNull(int64_t v) { return v < 0 ? Null() : Int(v); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  const Value& value() const { return v_; }
  // The value as that type; an integer of the other signedness is converted, anything else is 0
  // (or "").
  int64_t i() const {
    if (const auto* u = std::get_if<uint64_t>(&v_)) return static_cast<int64_t>(*u);
    const auto* i = std::get_if<int64_t>(&v_);
    return i ? *i : 0;
  }
  uint64_t u() const {
    if (const auto* i = std::get_if<int64_t>(&v_)) return static_cast<uint64_t>(*i);
    const auto* u = std::get_if<uint64_t>(&v_);
    return u ? *u : 0;
  }
  double d() const {
    const auto* d = std::get_if<double>(&v_);
    return d ? *d : 0;
  }
  const std::string& s() const;

 private:
  explicit Cell(Value v) : v_(std::move(v)) {}
  Value v_;
};
static_assert(std::variant_size_v<Cell::Value> == static_cast<size_t>(Cell::Kind::kText) + 1);

// How the terminal shows a column's values (CSV and JSON always carry the raw value).
enum class Show {
  kText,       // as is, left-aligned
  kTextRight,  // as is, right-aligned (a value already formatted: "1.2 ms", "+3.0%")
  kCount,      // 1,234
  kDuration,   // ns in the table's time unit (us / ms / s, picked from the largest value)
  kFixed1,     // a real with 1 decimal
  kFixed3,     // a real with 3 decimals
  kNumber,     // a real: whole numbers without decimals, others with 3
};

struct Column {
  // A column of the terminal only (a number formatted for reading, beside its machine column).
  static Column TerminalOnly(std::string header, Show s = Show::kTextRight) {
    return Column("", std::move(header), s);
  }
  // A text column shortened to fit the terminal's width (a name, a path).
  static Column Flexible(std::string key, std::string header) {
    return Column(std::move(key), std::move(header), Show::kText, "", true);
  }
  Column(std::string k, std::string h = "", Show s = Show::kText, std::string csv = "",
         bool flex = false, int decimals = 6)
      : key(std::move(k)),
        header(std::move(h)),
        show(s),
        csv_key(std::move(csv)),
        flexible(flex),
        csv_decimals(decimals) {}
  // JSON key and CSV header; empty = shown in the terminal only. "a.b" nests b in an object a
  // (left out of a row when all its cells are absent).
  std::string key;
  // Terminal header; empty = machine formats only. "{unit}" becomes the table's time unit.
  std::string header;
  Show show = Show::kText;
  std::string csv_key;    // CSV header when it differs from the key's last part
  bool flexible = false;  // shortened to fit the terminal (a name, a path)
  int csv_decimals = 6;   // reals in CSV
};

class ResultTable {
 public:
  explicit ResultTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // Terminal column order, as indexes into the columns (default: the columns' own order).
  void SetTerminalOrder(std::vector<size_t> order) { terminal_order_ = std::move(order); }
  void AddRow(std::vector<Cell> cells);
  // Rows made on demand instead of held (AddRow): `make(r, cells)` fills row r's cells (given
  // empty) as it is written, so a table of a million rows holds one row's cells at a time
  // (issue 33). What `make` reads must outlive the table.
  using RowMaker = std::function<void(size_t row, std::vector<Cell>& cells)>;
  void SetRows(size_t count, RowMaker make);
  size_t rows() const { return make_ ? made_rows_ : rows_.size(); }

  // At most `limit` rows (0 = all). `fit`: the table within `width`, the numbers giving way
  // before a name does (the flexible column keeps kNameFloor columns while they can): durations
  // with fewer decimals, the time unit in the first duration header only, then the last duration
  // columns left out (a line below says which); only then the name shortened further.
  std::string Text(size_t width, bool fit, size_t limit = 0) const;
  static constexpr size_t kNameFloor = 40;
  // `stream`: rows written there as they are made; the rest is returned.
  std::string Csv(size_t limit = 0, std::FILE* stream = nullptr) const;
  void Json(output::JsonWriter& w, size_t limit = 0) const;  // an array of objects

 private:
  // How the numbers are shown: decimals of durations, the unit in the first duration header only
  // (`compact`), and how narrow the name may get.
  struct Layout {
    int decimals = 3;
    bool compact = false;
    size_t name_floor = 16;
  };
  // The terminal columns `order` (a part of `all`, which sets the time unit).
  std::string Text(const std::vector<size_t>& all, const std::vector<size_t>& order, size_t width,
                   bool fit, size_t limit, Layout layout) const;
  // The columns the shown rows' base names need (base/short_name.h) with kDifferRoom after a
  // base that more follows, at most kBaseRoom.
  size_t BaseRoom(const std::vector<size_t>& order, size_t limit) const;
  static constexpr size_t kBaseRoom = 60, kDifferRoom = 12;
  // The give-way steps of Text for a table with a name column, until the base names are whole
  // (kBaseRoom) or at least two duration columns are left: "" when none fits `width`.
  std::string TextGivingWay(const std::vector<size_t>& order, size_t width, size_t limit,
                            size_t floor) const;
  size_t Count(size_t limit) const { return limit == 0 || limit > rows() ? rows() : limit; }
  // Row r's cells: held, or made into the scratch row (valid until the next call).
  const std::vector<Cell>& Row(size_t r) const;

  std::vector<Column> columns_;
  std::vector<size_t> terminal_order_;
  std::vector<std::vector<Cell>> rows_;
  RowMaker make_;
  size_t made_rows_ = 0;
  mutable std::vector<Cell> scratch_;
};

}  // namespace gpuscope::render
