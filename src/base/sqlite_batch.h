#pragma once
// SqliteBatchInsert: rows of one table inserted kRows at a time through one multi-row INSERT,
// so that SQLite's per-statement work (step, reset, halt, opening the table) is paid once per
// batch instead of once per row - what writing millions of rows (.rpd) spends most on.
//
// Bound like a SqliteQuery (1-based column indexes, then Run() per row); rows wait in the batch
// until it is full or Flush() is called, which the writer must do before it reads the table or
// commits.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sqlite_db.h"
#include "base/status.h"

namespace gpuscope::base {

class SqliteBatchInsert {
 public:
  static constexpr int kRows = 64;

  // `columns`: "a, b, c"; a row binds that many parameters.
  static StatusOr<SqliteBatchInsert> Create(SqliteDb& db, std::string_view table,
                                            std::string_view columns);

  void Bind(int index, int64_t value) { At(index) = {Value::kInt, value, {}}; }
  void Bind(int index, std::string_view text);
  void BindNull(int index) { At(index) = {Value::kNull, 0, {}}; }
  // A value the source may lack: bound when `known`, else NULL (`value` is computed either way).
  void BindIf(int index, bool known, int64_t value) {
    if (known)
      Bind(index, value);
    else
      BindNull(index);
  }
  // The row is complete: queued, and the batch written when full. Columns not bound are NULL.
  Status Run();
  // Writes the rows queued.
  Status Flush();

 private:
  struct Value {
    enum Kind { kNull, kInt, kText } kind = kNull;
    int64_t number = 0;
    std::string text;
  };
  SqliteBatchInsert(SqliteDb* db, std::string sql_head, int count, SqliteQuery full);
  Value& At(int index) { return values_[static_cast<size_t>(rows_ * count_ + index - 1)]; }
  // Binds the first `rows` queued rows to `q` and runs it.
  Status Write(SqliteQuery& q, int rows);

  SqliteDb* db_;
  std::string head_;  // "INSERT INTO table(columns) VALUES "
  int count_;
  std::optional<SqliteQuery> full_;
  std::vector<Value> values_;  // kRows x count_, row-major
  int rows_ = 0;               // complete rows queued
};

}  // namespace gpuscope::base
