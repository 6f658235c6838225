#pragma once
// SqliteDb / SqliteQuery: a thin read-only wrapper over the SQLite C API for the importers of
// database formats (nsys export, rocpd, .rpd, legacy rocprof results.db) and the .rpd writer.
// Rows are streamed with Step(); nothing is loaded whole. Every error names the file and says
// what is wrong (locked, corrupt, not a database) in one line.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpuscope::base {

class SqliteQuery;

// The SQLite VM steps left to one database's queries, and the wall time one query may take; a
// progress handler counts the steps down and checks the clock (one step may be an expensive
// built-in - hex(zeroblob(8e6)) - so steps alone never bound the time).
struct SqliteBudget {
  uint64_t steps = 0, left = 0;
  bool exceeded = false;
  int64_t query_ns = 0;     // wall time one query may take
  int64_t deadline_ns = 0;  // steady-clock time the current query must end by
  bool out_of_time = false;
};

// The wall time one query of a database may take (--sqlite-budget), in seconds per MB of the
// file; 0 restores the default (kDefaultSqliteSecondsPerMb, at least kMinQuerySeconds).
// Process-wide, set once by the CLI.
void SetSqliteSecondsPerMb(double seconds);
inline constexpr double kDefaultSqliteSecondsPerMb = 3;
inline constexpr double kMinQuerySeconds = 5;

// What a read-only database may be read through (SQLite's authorizer): tables, and views that are
// a plain read of one table (rocpd's `SELECT * FROM rocpd_x_<uuid>`). A view that joins, nests a
// query or reads another view is no trace format's - a crafted file's - and reading it is refused
// with its name, as is a recursive query.
struct SqliteReadGuard {
  std::set<std::string, std::less<>> refused_views;
  // VIRTUAL generated columns ("table.column") that compute more than arithmetic on columns (a
  // function per row, computed on every read): reading them is refused.
  std::set<std::string, std::less<>> refused_generated;
  std::string denied;  // the view (or "a recursive query") the last refusal was for
  // Refused views read from their base table instead: (view, table). rocpd names a view's table
  // `<view>_<uuid>`; where exactly one such table exists, a TEMP view of the same name (TEMP
  // names are found before the file's) reads it whole, and the crafted definition is never run.
  std::vector<std::pair<std::string, std::string>> replaced_views;
};

class SqliteDb {
 public:
  // Opens `path` read-only. A gzip-compressed database (.rpd.gz) is first inflated into a
  // temporary file that is removed when the SqliteDb is destroyed. Waits up to
  // `busy_timeout_ms` for a writer's lock before reporting the database as locked. Every query
  // on it shares a budget of SQLite VM steps proportional to the file's size (kStepsPerByte per
  // byte, at least kMinSteps): a crafted database (a view that recurses forever, a cubic join)
  // ends in one line naming it instead of a hang; real traces stay far below it.
  // `views`: kPlainOnly for inputs (SqliteReadGuard); kAny for a file gpuscope wrote itself (a
  // test reading the .rpd writer's own views, which join).
  enum class Views { kPlainOnly, kAny };
  static StatusOr<SqliteDb> OpenReadOnly(const std::string& path, int busy_timeout_ms = 2000,
                                         Views views = Views::kPlainOnly);
  static constexpr uint64_t kMinSteps = 200'000'000;  // a few seconds of SQLite's VM
  static constexpr uint64_t kStepsPerByte = 200;
  // The longest string or blob a read-only database may hand over.
  static constexpr int kMaxValueBytes = 16 << 20;
  // Opens a database for writing at `path`: a missing or empty file (writers pass the temporary
  // file of base::AtomicOutput, so that what was at the target survives a failed write).
  static StatusOr<SqliteDb> Create(const std::string& path);

  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  ~SqliteDb();

  const std::string& path() const { return path_; }
  // Names of the tables and views (read once, on open).
  const std::set<std::string, std::less<>>& objects() const { return objects_; }
  bool Has(std::string_view table_or_view) const { return objects_.count(table_or_view) > 0; }
  // Column names of a table or view, in order; empty when it does not exist.
  std::vector<std::string> Columns(std::string_view table) const;

  StatusOr<SqliteQuery> Query(std::string_view sql) const;
  // Runs statements that return no rows (writer side).
  Status Exec(std::string_view sql) const;
  // Single-value helpers; `fallback` when there is no row or the value is NULL.
  int64_t QueryInt(std::string_view sql, int64_t fallback) const;
  std::string QueryText(std::string_view sql, std::string fallback = {}) const;

  sqlite3* handle() const { return db_; }
  // True once a read was refused (a crafted view, generated column or recursive query) or ran
  // out of its budget: what was read is not the file's whole content.
  bool Refused() const {
    return (guard_ && !guard_->denied.empty()) ||
           (budget_ && (budget_->exceeded || budget_->out_of_time));
  }
  // Refused views that read their base table instead (see SqliteReadGuard::replaced_views).
  const std::vector<std::pair<std::string, std::string>>& replaced_views() const {
    static const std::vector<std::pair<std::string, std::string>> kNone;
    return guard_ ? guard_->replaced_views : kNone;
  }
  // One line: "<path>: <what the SQLite error means> (<sqlite message>)".
  std::string ErrorLine(int code, std::string_view doing) const;

 private:
  friend class SqliteQuery;  // a lookup's Reset() starts its query's time
  SqliteDb() = default;
  Status LoadObjects();

  sqlite3* db_ = nullptr;
  // On the heap, so that the progress handler's and the authorizer's pointers survive moves.
  std::unique_ptr<SqliteBudget> budget_;
  std::unique_ptr<SqliteReadGuard> guard_;
  std::string path_;
  std::string temp_path_;  // inflated copy of a gzip database, removed on destruction
  std::set<std::string, std::less<>> objects_;
};

// A prepared statement being stepped through. Column accessors are by index.
class SqliteQuery {
 public:
  SqliteQuery(SqliteQuery&& other) noexcept;
  SqliteQuery& operator=(SqliteQuery&& other) noexcept;
  ~SqliteQuery();

  // Advances to the next row; false at the end or on error (then status() says why).
  bool Step();
  const Status& status() const { return status_; }

  bool IsNull(int col) const;
  int64_t Int(int col) const;
  // The value when it is an integer (or a real with an exact integer value); nullopt for NULL,
  // text, blobs and fractions - what Int() would silently turn into 0 or truncate.
  std::optional<int64_t> Integer(int col) const;
  double Double(int col) const;
  std::string_view Text(int col) const;  // valid until the next Step()
  std::string_view Blob(int col) const;  // the bytes as stored; valid until the next Step()
  int ColumnCount() const;
  std::string ColumnName(int col) const;

  // Binding for the writer side; Reset() makes the statement reusable.
  void Bind(int index, int64_t value);
  void Bind(int index, double value);
  void Bind(int index, std::string_view text);
  void BindNull(int index);
  // A value the source may lack: bound when `known`, else NULL (`value` is computed either way).
  void BindIf(int index, bool known, int64_t value) {
    if (known)
      Bind(index, value);
    else
      BindNull(index);
  }
  void BindBlob(int index, std::string_view bytes);
  Status Run();  // steps once (INSERT/UPDATE), then resets
  void Reset();  // rewinds a query to be stepped again with new bindings

 private:
  friend class SqliteDb;
  SqliteQuery(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  const SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

// Quotes an identifier for SQL ("name" with doubled quotes).
std::string SqlIdent(std::string_view name);

}  // namespace gpuscope::base
