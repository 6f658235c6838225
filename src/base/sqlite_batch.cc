#include "base/sqlite_batch.h"

#include <algorithm>
#include <utility>

namespace gpuscope::base {

namespace {
// "head(?,?),(?,?)...": `rows` rows of `count` parameters.
std::string RowsSql(const std::string& head, int count, int rows) {
  std::string sql = head;
  for (int r = 0; r < rows; ++r) {
    sql += r ? ",(" : "(";
    for (int c = 0; c < count; ++c) sql += c ? ",?" : "?";
    sql += ")";
  }
  return sql;
}
}  // namespace

StatusOr<SqliteBatchInsert> SqliteBatchInsert::Create(SqliteDb& db, std::string_view table,
                                                      std::string_view columns) {
  const int count = 1 + static_cast<int>(std::count(columns.begin(), columns.end(), ','));
  std::string head = "INSERT INTO ";
  head += table;
  head += "(";
  head += columns;
  head += ") VALUES ";
  GPUSCOPE_ASSIGN_OR_RETURN(auto full, db.Query(RowsSql(head, count, kRows)));
  return SqliteBatchInsert(&db, std::move(head), count, std::move(full));
}

SqliteBatchInsert::SqliteBatchInsert(SqliteDb* db, std::string sql_head, int count,
                                     SqliteQuery full)
    : db_(db), head_(std::move(sql_head)), count_(count), full_(std::move(full)) {
  values_.resize(static_cast<size_t>(kRows * count_));
}

void SqliteBatchInsert::Bind(int index, std::string_view text) {
  Value& v = At(index);
  v.kind = Value::kText;
  v.text.assign(text);  // the string keeps its capacity from batch to batch
}

Status SqliteBatchInsert::Write(SqliteQuery& q, int rows) {
  for (int i = 0; i < rows * count_; ++i) {
    Value& v = values_[static_cast<size_t>(i)];
    if (v.kind == Value::kInt)
      q.Bind(i + 1, v.number);
    else if (v.kind == Value::kText)
      q.Bind(i + 1, std::string_view(v.text));
    else
      q.BindNull(i + 1);
    v.kind = Value::kNull;  // the next row starts unbound
  }
  return q.Run();
}

Status SqliteBatchInsert::Run() {
  if (++rows_ < kRows) return Status::Ok();
  rows_ = 0;
  return Write(*full_, kRows);
}

Status SqliteBatchInsert::Flush() {
  if (rows_ == 0) return Status::Ok();
  GPUSCOPE_ASSIGN_OR_RETURN(auto rest, db_->Query(RowsSql(head_, count_, rows_)));
  int rows = rows_;
  rows_ = 0;
  return Write(rest, rows);
}

}  // namespace gpuscope::base
