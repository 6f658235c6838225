#include "base/sqlite_db.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "base/sqlite_batch.h"
#include "base/temp_dir.h"

namespace gpuscope::base {
namespace sqlite_db_test {  // this file's helpers, apart in a unity build
namespace {

// A database of one 200-row table `t`, a plain view of it and the views no format writes.
std::string MakeDatabase(const TempDir& dir) {
  std::string path = dir.path() + "/t.db";
  auto db = SqliteDb::Create(path);
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);"
                       "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k "
                       "WHERE n < 200) INSERT INTO t SELECT n, n FROM k;"
                       "CREATE VIEW plain AS\n  SELECT *\n  FROM `t`;"
                       "CREATE VIEW joined AS SELECT a.id FROM t a JOIN t b ON a.v = b.v;"
                       "CREATE VIEW nested AS SELECT * FROM plain;"
                       "CREATE VIEW endless AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                       "SELECT n + 1 FROM r) SELECT n FROM r;")
                  .ok());
  return path;
}

TEST(SqliteDb, TablesAndPlainViewsAreReadOthersAreRefusedByName) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = MakeDatabase(*dir);
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(db->QueryInt("SELECT count(*) FROM t", -1), 200);
  EXPECT_EQ(db->QueryInt("SELECT count(*) FROM plain", -1), 200);
  // The endless view is refused for its recursion, seen before its name.
  for (const char* view : {"joined", "nested", "endless"}) {
    auto q = db->Query(std::string("SELECT * FROM ") + view);
    ASSERT_FALSE(q.ok()) << view;
    const std::string& m = q.status().message();
    bool named = m.find(std::string("'") + view + "'") != std::string::npos;
    EXPECT_TRUE(named ||
                (std::string(view) == "endless" && m.find("recursive query") != std::string::npos))
        << m;
    EXPECT_NE(m.find(path), std::string::npos);
  }
  auto rec = db->Query(
      "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
      "SELECT n FROM r");
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.status().message().find("recursive query"), std::string::npos);
}

TEST(SqliteDb, AQueryPastTheStepBudgetEndsInOneLine) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = MakeDatabase(*dir);
  SetSqliteSecondsPerMb(1e6);  // time enough: the steps end it
  auto db = SqliteDb::OpenReadOnly(path);
  SetSqliteSecondsPerMb(0);
  ASSERT_TRUE(db.ok());
  auto start = std::chrono::steady_clock::now();
  // 200^4 = 1.6e9 rows: far past the budget of a small file (2e8 steps).
  auto q = db->Query("SELECT count(*) FROM t a, t b, t c, t d WHERE a.v + b.v + c.v + d.v < 0");
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->Step());
  EXPECT_NE(q->status().message().find("SQLite steps"), std::string::npos) << q->status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// A query within the step budget but past its wall time (--sqlite-budget): one line, soon.
TEST(SqliteDb, AQueryPastItsTimeEndsInOneLine) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = MakeDatabase(*dir);
  SetSqliteSecondsPerMb(1e-9);  // the floor: 1 ms a query
  auto db = SqliteDb::OpenReadOnly(path);
  SetSqliteSecondsPerMb(0);
  ASSERT_TRUE(db.ok());
  auto start = std::chrono::steady_clock::now();
  auto q = db->Query("SELECT count(*) FROM t a, t b, t c WHERE a.v + b.v + c.v < 0");
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->Step());
  EXPECT_NE(q->status().message().find("a query ran past 0.0 s"), std::string::npos)
      << q->status().message();
  EXPECT_TRUE(db->Refused());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Views and VIRTUAL generated columns that call a function per row are refused by name; plain
// arithmetic on columns is read.
TEST(SqliteDb, CostlyViewsAndGeneratedColumnsAreRefusedPlainOnesRead) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/g.db";
  {
    auto db = SqliteDb::Create(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER, b INTEGER AS (a * 2 + 1) VIRTUAL);"
                         "CREATE TABLE u (a INTEGER, b INTEGER AS (length(hex(a))) VIRTUAL,"
                         " c INTEGER AS (a + 1) STORED);"
                         "INSERT INTO t (a) VALUES (1), (2); INSERT INTO u (a) VALUES (3);"
                         "CREATE VIEW sum_view AS SELECT a + 1 AS x FROM t WHERE a > 0;"
                         "CREATE VIEW call_view AS SELECT abs(a) AS x FROM t;")
                    .ok());
  }
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(db->QueryInt("SELECT sum(b) FROM t", -1), 8);
  EXPECT_EQ(db->QueryInt("SELECT sum(x) FROM sum_view", -1), 5);
  EXPECT_EQ(db->QueryInt("SELECT a FROM u", -1), 3);
  EXPECT_FALSE(db->Refused());
  auto gen = db->Query("SELECT b FROM u");
  ASSERT_FALSE(gen.ok());
  EXPECT_NE(gen.status().message().find("generated column 'u.b'"), std::string::npos)
      << gen.status().message();
  auto view = db->Query("SELECT x FROM call_view");
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("'call_view'"), std::string::npos);
  EXPECT_TRUE(db->Refused());
}

// A refused view with one base table `<view>_<uuid>` (rocpd's naming) reads that table whole;
// with none, or two, it stays refused.
TEST(SqliteDb, ARefusedViewWithOneBaseTableReadsTheTable) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/v.db";
  {
    auto db = SqliteDb::Create(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("CREATE TABLE k_0001aaaa_bbbb (a INTEGER); INSERT INTO k_0001aaaa_bbbb"
                         " VALUES (1), (2), (3);"
                         "CREATE VIEW k AS SELECT x.a FROM k_0001aaaa_bbbb x, k_0001aaaa_bbbb y;"
                         "CREATE TABLE two_0000000a (a INTEGER); CREATE TABLE two_0000000b (a"
                         " INTEGER); CREATE VIEW two AS SELECT abs(a) AS a FROM two_0000000a;"
                         "CREATE TABLE rows (a INTEGER); CREATE VIEW alone AS SELECT abs(a) AS a"
                         " FROM rows;")
                    .ok());
  }
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  // The joined definition would give 9 rows summing to 18; the base table gives 3 summing to 6.
  EXPECT_EQ(db->QueryInt("SELECT count(*) FROM k", -1), 3);
  EXPECT_EQ(db->QueryInt("SELECT sum(a) FROM k", -1), 6);
  EXPECT_EQ(db->Columns("k"), std::vector<std::string>{"a"});
  EXPECT_FALSE(db->Refused());
  ASSERT_EQ(db->replaced_views().size(), 1u);
  EXPECT_EQ(db->replaced_views()[0].first, "k");
  EXPECT_EQ(db->replaced_views()[0].second, "k_0001aaaa_bbbb");
  EXPECT_FALSE(db->Query("SELECT a FROM two").ok());
  EXPECT_FALSE(db->Query("SELECT a FROM alone").ok());
  EXPECT_TRUE(db->Refused());
}

TEST(SqliteDb, AStringPastTheLengthLimitIsRefusedNotCopied) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/big.db";
  {
    auto db = SqliteDb::Create(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("CREATE TABLE s (v TEXT); INSERT INTO s VALUES (zeroblob(20 << 20));"
                         "INSERT INTO s VALUES ('short');")
                    .ok());
  }
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok());
  auto q = db->Query("SELECT v FROM s");
  ASSERT_TRUE(q.ok());
  while (q->Step()) {
  }
  EXPECT_NE(q->status().message().find("over 16 MiB"), std::string::npos) << q->status().message();
}

// Rows written in batches: full batches as they fill, the rest on Flush; every value as bound
// (integers, text, NULL, columns left unbound are NULL), in order.
TEST(SqliteBatchInsert, WritesEveryRowOnceInOrder) {
  auto dir = TempDir::Create("gpuscope-sqlite-test");
  ASSERT_TRUE(dir.ok());
  auto db = SqliteDb::Create(dir->path() + "/b.db");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->Exec("CREATE TABLE r (id INTEGER PRIMARY KEY, n INTEGER, s TEXT);").ok());
  auto batch = SqliteBatchInsert::Create(*db, "r", "id, n, s");
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  const int rows = 2 * SqliteBatchInsert::kRows + 22;
  for (int i = 1; i <= rows; ++i) {
    batch->Bind(1, int64_t{i});
    if (i % 5) batch->Bind(2, int64_t{i * 10});  // every 5th left unbound: NULL
    if (i % 3 == 0)
      batch->BindNull(3);
    else
      batch->Bind(3, std::string(static_cast<size_t>(i % 7), 'a'));
    ASSERT_TRUE(batch->Run().ok());
  }
  auto count = db->Query("SELECT COUNT(*) FROM r");
  ASSERT_TRUE(count.ok() && count->Step());
  EXPECT_EQ(count->Int(0), 2 * SqliteBatchInsert::kRows);  // the rest waits for Flush
  ASSERT_TRUE(batch->Flush().ok());
  ASSERT_TRUE(batch->Flush().ok());  // nothing left: no row twice
  auto q = db->Query("SELECT id, n, s FROM r ORDER BY id");
  ASSERT_TRUE(q.ok());
  int seen = 0;
  while (q->Step()) {
    int i = ++seen;
    EXPECT_EQ(q->Int(0), i);
    if (i % 5)
      EXPECT_EQ(q->Int(1), i * 10);
    else
      EXPECT_TRUE(q->IsNull(1)) << i;
    if (i % 3 == 0)
      EXPECT_TRUE(q->IsNull(2)) << i;
    else
      EXPECT_EQ(q->Text(2), std::string(static_cast<size_t>(i % 7), 'a'));
  }
  EXPECT_EQ(seen, rows);
}

}  // namespace
}  // namespace sqlite_db_test
}  // namespace gpuscope::base
