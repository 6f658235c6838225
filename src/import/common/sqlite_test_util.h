#pragma once
// Test helper: builds an SQLite file from one of the committed .sql fixtures (plus optional
// extra statements that damage or vary it), in a fresh temporary directory.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/sqlite_db.h"
#include "base/temp_dir.h"

namespace gpuscope::import::testing {

// A fresh directory, kept until the test program exits and then removed with its files.
inline std::string TempDir() {
  static std::vector<base::TempDir> dirs;
  auto dir = base::TempDir::Create("gpuscope-test");
  EXPECT_TRUE(dir.ok()) << dir.status().message();
  if (!dir.ok()) return "/tmp";
  dirs.push_back(std::move(dir).value());
  return dirs.back().path();
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `name` in a new temporary directory from `sql_fixture` (a path) and `extra_sql`.
inline std::string MakeDb(const std::string& sql_fixture, const std::string& extra_sql = "",
                          const std::string& name = "trace.sqlite") {
  std::string path = TempDir() + "/" + name;
  auto db = base::SqliteDb::Create(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return path;
  std::string sql = sql_fixture.empty() ? std::string() : ReadText(sql_fixture);
  EXPECT_FALSE(sql_fixture.empty() == false && sql.empty()) << "cannot read " << sql_fixture;
  auto st = db->Exec("BEGIN;" + sql + extra_sql + "COMMIT;");
  EXPECT_TRUE(st.ok()) << st.message();
  return path;
}

}  // namespace gpuscope::import::testing
