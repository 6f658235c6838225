#include "base/sqlite_db.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "base/atomic_output.h"
#include "base/byte_source.h"
#include "base/files.h"
#include "base/gzip_inflate.h"
#include "base/sqlite_guard.h"
#include "base/text.h"

namespace gpuscope::base {
namespace {

// SQLite's authorizer: refuses reads through a refused view, of a refused generated column, and
// recursive queries.
int Authorize(void* p, int action, const char* table, const char* column, const char*,
              const char* view) {
  auto* g = static_cast<SqliteReadGuard*>(p);
  if (action == SQLITE_RECURSIVE) {
    g->denied = "a recursive query";
    return SQLITE_DENY;
  }
  if (action == SQLITE_READ && table && column && !g->refused_generated.empty() &&
      g->refused_generated.count(std::string(table) + "." + column)) {
    g->denied = std::string("the generated column '") + table + "." + column + "'";
    return SQLITE_DENY;
  }
  if (action == SQLITE_READ && view && g->refused_views.count(std::string_view(view))) {
    g->denied = std::string("the view '") + view + "'";
    return SQLITE_DENY;
  }
  return SQLITE_OK;
}

// VM steps between calls of the progress handler (a clock read each: ~0.01% of a query).
constexpr int kProgressEvery = 1000;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::atomic<double> g_seconds_per_mb{0};

// The progress handler: counts the budget down and checks the query's deadline; non-zero
// interrupts the statement (SQLITE_INTERRUPT), which ErrorLine explains.
int CountDown(void* p) {
  auto* b = static_cast<SqliteBudget*>(p);
  if (b->left < kProgressEvery) {
    b->exceeded = true;
    return 1;
  }
  b->left -= kProgressEvery;
  if (b->deadline_ns > 0 && NowNs() > b->deadline_ns) {
    b->out_of_time = true;
    return 1;
  }
  return 0;
}

}  // namespace

std::string SqlIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string SqliteDb::ErrorLine(int code, std::string_view doing) const {
  std::string what;
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      what =
          "the database is locked by another process (is the profiler still writing it?); "
          "wait for it to finish and try again";
      break;
    case SQLITE_CORRUPT:
      what = "the database is corrupt (truncated or damaged copy?); re-copy or re-export it";
      break;
    case SQLITE_NOTADB:
      what = "not an SQLite database (or it is encrypted/damaged)";
      break;
    case SQLITE_CANTOPEN:
      what = "cannot open the database (missing file or no permission)";
      break;
    case SQLITE_IOERR:
      what = "I/O error while reading the database";
      break;
    case SQLITE_TOOBIG:
      what = "it holds a string or blob over " + std::to_string(kMaxValueBytes >> 20) +
             " MiB, longer than any field of a trace: a crafted or damaged database; not read";
      break;
    case SQLITE_AUTH:
      if (guard_ && !guard_->denied.empty()) {
        return path_ + ": reading it goes through " + guard_->denied +
               ", which joins, nests or recurses where a trace format has a table: a crafted or "
               "damaged database; not read (re-export the trace from the profiler)";
      }
      what = "SQLite refused the query";
      break;
    case SQLITE_INTERRUPT:
      if (budget_ && budget_->out_of_time) {
        return path_ + ": a query ran past " +
               FormatFixed(static_cast<double>(budget_->query_ns) / 1e9, 1) +
               " s, far beyond what a trace of its size needs: a crafted or damaged database "
               "(expensive views or columns?); not read further (--sqlite-budget raises the "
               "limit)";
      }
      if (budget_ && budget_->exceeded) {
        return path_ + ": its queries ran past " + std::to_string(budget_->steps / 1'000'000) +
               " M SQLite steps, far beyond what a trace of its size needs: a crafted or damaged "
               "database (a view that never ends?); not read further";
      }
      what = "SQLite was interrupted";
      break;
    default:
      what = "SQLite error while " + std::string(doing);
  }
  std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  return path_ + ": " + what + " (" + detail + ")";
}

namespace {
// Once per process, before SQLite is first used: no memory statistics, which SQLite otherwise
// keeps under a global mutex taken by every allocation (8% of writing a 200 MB trace as .rpd).
// Where something else in the process started SQLite first (Python's sqlite3) the call is
// refused and SQLite keeps its defaults: only slower.
void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}
}  // namespace

StatusOr<SqliteDb> SqliteDb::OpenReadOnly(const std::string& path, int busy_timeout_ms,
                                          Views views) {
  ConfigureSqliteOnce();
  SqliteDb db;
  db.path_ = path;
  std::string open_path = path;
  if (IsGzipFile(path)) {
    GPUSCOPE_ASSIGN_OR_RETURN(auto tmp, InflateToTemp(path));
    db.temp_path_ = tmp;
    open_path = tmp;
  }
  int rc = sqlite3_open_v2(open_path.c_str(), &db.db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) return Status::Error(db.ErrorLine(rc, "opening"));
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(open_path, ec);
  db.budget_ = std::make_unique<SqliteBudget>();
  db.budget_->steps = std::max(kMinSteps, (ec ? 0 : bytes) * kStepsPerByte);
  db.budget_->left = db.budget_->steps;
  // --sqlite-budget as given; the default never under kMinQuerySeconds.
  double per_mb = g_seconds_per_mb.load(), mb = static_cast<double>(ec ? 0 : bytes) / 1e6;
  double seconds = per_mb > 0 ? std::max(1e-3, per_mb * mb)
                              : std::max(kMinQuerySeconds, kDefaultSqliteSecondsPerMb * mb);
  db.budget_->query_ns = static_cast<int64_t>(std::min(seconds, 1e9) * 1e9);
  sqlite3_progress_handler(db.db_, kProgressEvery, CountDown, db.budget_.get());
  sqlite3_busy_timeout(db.db_, busy_timeout_ms);
  // No field of a trace is near 16 MiB (the longest kernel names are kilobytes): a longer string
  // or blob is a crafted file's, refused (SQLITE_TOOBIG) instead of copied into memory.
  sqlite3_limit(db.db_, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  // The transient indexes SQLite builds for
  // joins on unindexed columns (rpd's rocpd_api_ops.op_id) stay in memory, not temp files.
  sqlite3_exec(db.db_, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536;", nullptr, nullptr,
               nullptr);
  GPUSCOPE_RETURN_IF_ERROR(db.LoadObjects());
  if (views == Views::kAny) return db;
  // Views that are not a plain read of one table are refused from here on.
  db.guard_ = std::make_unique<SqliteReadGuard>();
  {
    std::set<std::string, std::less<>> tables;
    std::vector<std::pair<std::string, std::string>> defined;  // (view, its SQL)
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto q,
        db.Query("SELECT type, name, sql FROM sqlite_master WHERE type IN ('table','view')"));
    while (q.Step()) {
      if (q.Text(0) == "table")
        tables.emplace(q.Text(1));
      else
        defined.emplace_back(q.Text(1), q.IsNull(2) ? "" : std::string(q.Text(2)));
    }
    GPUSCOPE_RETURN_IF_ERROR(q.status());
    for (const auto& [name, sql] : defined)
      if (!IsPlainView(sql, tables)) db.guard_->refused_views.insert(name);
    GPUSCOPE_ASSIGN_OR_RETURN(db.guard_->refused_generated, CostlyGeneratedColumns(db, tables));
    GPUSCOPE_RETURN_IF_ERROR(ReadRefusedViewsFromBaseTables(db, *db.guard_, tables));
  }
  sqlite3_set_authorizer(db.db_, Authorize, db.guard_.get());
  return db;
}

StatusOr<SqliteDb> SqliteDb::Create(const std::string& path) {
  GPUSCOPE_RETURN_IF_ERROR(EnsureParentDirectory(path));
  // `path` is a new, empty file of the writer's (base::AtomicOutput): nothing is removed here.
  ConfigureSqliteOnce();
  SqliteDb db;
  db.path_ = path;
  int rc =
      sqlite3_open_v2(path.c_str(), &db.db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) return Status::Error(db.ErrorLine(rc, "creating"));
  return db;
}

Status SqliteDb::LoadObjects() {
  GPUSCOPE_ASSIGN_OR_RETURN(auto q,
                            Query("SELECT name FROM sqlite_master WHERE type IN ('table','view')"));
  while (q.Step()) objects_.emplace(q.Text(0));
  return q.status();
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : db_(o.db_),
      budget_(std::move(o.budget_)),
      guard_(std::move(o.guard_)),
      path_(std::move(o.path_)),
      temp_path_(std::move(o.temp_path_)),
      objects_(std::move(o.objects_)) {
  o.db_ = nullptr;
  o.temp_path_.clear();
}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
  if (this != &o) {
    this->~SqliteDb();
    new (this) SqliteDb(std::move(o));
  }
  return *this;
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
  if (!temp_path_.empty()) {
    unlink(temp_path_.c_str());
    ForgetOnSignal(temp_path_);
  }
}

std::vector<std::string> SqliteDb::Columns(std::string_view table) const {
  std::vector<std::string> cols;
  auto q = Query("SELECT name FROM pragma_table_info(" + std::string(1, '\'') + std::string(table) +
                 "')");
  if (!q.ok()) return cols;
  while (q->Step()) cols.emplace_back(q->Text(0));
  return cols;
}

void SetSqliteSecondsPerMb(double seconds) { g_seconds_per_mb = seconds; }

StatusOr<SqliteQuery> SqliteDb::Query(std::string_view sql) const {
  if (budget_) budget_->deadline_ns = NowNs() + budget_->query_ns;  // each query its own time
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Status::Error(ErrorLine(rc, "preparing \"" + std::string(sql.substr(0, 80)) + "\""));
  }
  return SqliteQuery(this, stmt);
}

Status SqliteDb::Exec(std::string_view sql) const {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string line = path_ + ": SQLite error: " + (err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    return Status::Error(line);
  }
  return Status::Ok();
}

int64_t SqliteDb::QueryInt(std::string_view sql, int64_t fallback) const {
  auto q = Query(sql);
  if (!q.ok() || !q->Step() || q->IsNull(0)) return fallback;
  return q->Int(0);
}

std::string SqliteDb::QueryText(std::string_view sql, std::string fallback) const {
  auto q = Query(sql);
  if (!q.ok() || !q->Step() || q->IsNull(0)) return fallback;
  return std::string(q->Text(0));
}

SqliteQuery::SqliteQuery(SqliteQuery&& o) noexcept
    : db_(o.db_), stmt_(o.stmt_), status_(std::move(o.status_)) {
  o.stmt_ = nullptr;
}

SqliteQuery& SqliteQuery::operator=(SqliteQuery&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    status_ = std::move(o.status_);
    o.stmt_ = nullptr;
  }
  return *this;
}

SqliteQuery::~SqliteQuery() { sqlite3_finalize(stmt_); }

bool SqliteQuery::Step() {
  if (!stmt_ || !status_.ok()) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) status_ = Status::Error(db_->ErrorLine(rc, "reading rows"));
  return false;
}

bool SqliteQuery::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t SqliteQuery::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
std::optional<int64_t> SqliteQuery::Integer(int col) const {
  switch (sqlite3_column_type(stmt_, col)) {
    case SQLITE_INTEGER:
      return sqlite3_column_int64(stmt_, col);
    case SQLITE_FLOAT: {
      double v = sqlite3_column_double(stmt_, col);
      // 2^63 is exactly representable; anything at or beyond it does not fit.
      if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != std::trunc(v))
        return std::nullopt;
      return static_cast<int64_t>(v);
    }
    default:
      return std::nullopt;
  }
}
double SqliteQuery::Double(int col) const { return sqlite3_column_double(stmt_, col); }
std::string_view SqliteQuery::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}
std::string_view SqliteQuery::Blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
  if (!p) return {};
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}
int SqliteQuery::ColumnCount() const { return sqlite3_column_count(stmt_); }
std::string SqliteQuery::ColumnName(int col) const {
  const char* n = sqlite3_column_name(stmt_, col);
  return n ? n : "";
}

void SqliteQuery::Bind(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void SqliteQuery::Bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void SqliteQuery::BindBlob(int index, std::string_view bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

void SqliteQuery::Bind(int index, std::string_view text) {
  // An empty view may have a null data pointer, which SQLite would bind as NULL: bind "".
  sqlite3_bind_text(stmt_, index, text.empty() ? "" : text.data(), static_cast<int>(text.size()),
                    SQLITE_TRANSIENT);
}
void SqliteQuery::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

void SqliteQuery::Reset() {
  status_ = Status::Ok();  // a failed lookup does not fail the next one
  if (db_ && db_->budget_) db_->budget_->deadline_ns = NowNs() + db_->budget_->query_ns;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Status SqliteQuery::Run() {
  int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return Status::Error(db_->ErrorLine(rc, "writing"));
  return Status::Ok();
}

}  // namespace gpuscope::base
