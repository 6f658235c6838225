#pragma once
// What a read-only database's schema may make a read cost (sqlite_db.cc's guard): views that are
// a plain read of one table with nothing but column references and arithmetic, and VIRTUAL
// generated columns of the same kind. Anything else - a join, a nested query, a function called
// per row (length(hex(zeroblob(8000000))) costs a second each) - is a crafted file's.

#include <set>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuscope::base {

class SqliteDb;

// Whether a view's SQL is a plain read of one table of the database: SELECT <columns> FROM
// <table> [WHERE ...], with no second SELECT, join, union, CTE, comma in its FROM clause or
// function call.
bool IsPlainView(std::string_view sql, const std::set<std::string, std::less<>>& tables);

// True when the SQL text calls a function (a name followed by "("), string literals and quoted
// names aside.
bool CallsFunction(std::string_view sql);

// The VIRTUAL generated columns ("table.column") of `tables` whose expression calls a function.
StatusOr<std::set<std::string, std::less<>>> CostlyGeneratedColumns(
    const SqliteDb& db, const std::set<std::string, std::less<>>& tables);

struct SqliteReadGuard;

// Replaces each of `guard`'s refused views that has exactly one base table `<view>_<id>` (rocpd's
// naming, the id a UUID of hex digits and '_') by a TEMP view reading that table whole, and
// records it in guard.replaced_views: the crafted definition is never run, the file's rows are
// still read. A view with no such table, or two, stays refused.
Status ReadRefusedViewsFromBaseTables(const SqliteDb& db, SqliteReadGuard& guard,
                                      const std::set<std::string, std::less<>>& tables);

}  // namespace gpuscope::base
