#include "base/sqlite_guard.h"

#include <cctype>
#include <vector>

#include "base/sqlite_db.h"
#include "base/text.h"

namespace gpuscope::base {

bool IsPlainView(std::string_view raw, const std::set<std::string, std::less<>>& tables) {
  std::string sql;  // whitespace runs as one space: "AS\nSELECT" is "AS SELECT"
  for (char ch : raw) {
    bool space = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
    if (!space)
      sql += ch;
    else if (!sql.empty() && sql.back() != ' ')
      sql += ' ';
  }
  std::string up = AsciiUpper(sql);
  size_t as = up.find(" AS ");
  if (as == std::string::npos) return false;
  std::string body = up.substr(as + 4);
  auto count = [&](std::string_view w) {
    size_t n = 0;
    for (size_t p = body.find(w); p != std::string::npos; p = body.find(w, p + 1)) ++n;
    return n;
  };
  if (count("SELECT") != 1 || count("JOIN") || count("UNION") || count("WITH") || count("EXCEPT") ||
      count("INTERSECT") || CallsFunction(body))
    return false;
  size_t from = body.rfind(" FROM ");
  if (from == std::string::npos) return false;
  std::string rest(sql.substr(as + 4 + from + 6));
  size_t a = rest.find_first_not_of(" \t\n`\"[");
  if (a == std::string::npos) return false;
  size_t b = rest.find_first_of(" \t\n`\"];,", a);
  std::string table = rest.substr(a, b == std::string::npos ? std::string::npos : b - a);
  if (b != std::string::npos && rest.find(',', b) != std::string::npos) return false;
  return tables.count(table) > 0;
}

bool CallsFunction(std::string_view sql) {
  bool word = false;  // the last token was a bare name
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (c == '\'' || c == '"' || c == '`' || c == '[') {  // a literal or a quoted name
      char close = c == '[' ? ']' : c;
      size_t end = sql.find(close, i + 1);
      if (end == std::string_view::npos) return true;  // unbalanced: not plain
      i = end;
      word = false;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
      // A number is no name ("2 (" is not a call; "x2(" is).
      if (!word && std::isdigit(static_cast<unsigned char>(c))) {
        while (i + 1 < sql.size() &&
               (std::isalnum(static_cast<unsigned char>(sql[i + 1])) || sql[i + 1] == '.'))
          ++i;
        continue;
      }
      word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '(' && word) return true;
    word = false;
  }
  return false;
}

namespace {

// A string literal for SQL ('it''s').
std::string SqlText(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// The expression of each generated column in a CREATE TABLE statement: the text in the
// parentheses after "AS" (column definitions are the only place "AS (" appears there).
std::vector<std::string> GeneratedExpressions(std::string_view sql) {
  std::vector<std::string> out;
  std::string up = AsciiUpper(sql);
  for (size_t p = up.find("AS"); p != std::string::npos; p = up.find("AS", p + 2)) {
    bool alone = (p == 0 || !std::isalnum(static_cast<unsigned char>(up[p - 1]))) &&
                 (p + 2 >= up.size() || !std::isalnum(static_cast<unsigned char>(up[p + 2])));
    size_t open = up.find_first_not_of(" \t\r\n", p + 2);
    if (!alone || open == std::string::npos || up[open] != '(') continue;
    int depth = 0;
    size_t end = open;
    for (; end < up.size(); ++end) {
      if (up[end] == '(') ++depth;
      if (up[end] == ')' && --depth == 0) break;
    }
    out.emplace_back(sql.substr(open, end - open + 1));
  }
  return out;
}

}  // namespace

StatusOr<std::set<std::string, std::less<>>> CostlyGeneratedColumns(
    const SqliteDb& db, const std::set<std::string, std::less<>>& tables) {
  std::set<std::string, std::less<>> out;
  for (const auto& table : tables) {
    // hidden: 2 a VIRTUAL generated column (computed on every read), 3 a STORED one (read).
    GPUSCOPE_ASSIGN_OR_RETURN(auto q, db.Query("SELECT name FROM pragma_table_xinfo(" +
                                               SqlText(table) + ") WHERE hidden = 2"));
    std::vector<std::string> generated;
    while (q.Step()) generated.emplace_back(q.Text(0));
    GPUSCOPE_RETURN_IF_ERROR(q.status());
    if (generated.empty()) continue;
    GPUSCOPE_ASSIGN_OR_RETURN(
        auto s, db.Query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = " +
                         SqlText(table)));
    std::string sql = s.Step() ? std::string(s.Text(0)) : "";
    bool costly = false;
    for (const auto& e : GeneratedExpressions(sql)) costly |= CallsFunction(e);
    // Which expression is whose is not told apart: a costly one refuses each of them.
    if (costly)
      for (const auto& c : generated) out.insert(table + "." + c);
  }
  return out;
}

namespace {
// The id a rocpd table name ends with: a UUID written with '_' (hex digits and underscores).
bool IsTableIdSuffix(std::string_view s) {
  if (s.size() < 8) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}
}  // namespace

Status ReadRefusedViewsFromBaseTables(const SqliteDb& db, SqliteReadGuard& guard,
                                      const std::set<std::string, std::less<>>& tables) {
  for (auto it = guard.refused_views.begin(); it != guard.refused_views.end();) {
    const std::string prefix = *it + "_";
    const std::string* base = nullptr;
    int found = 0;
    for (auto t = tables.lower_bound(prefix); t != tables.end() && t->starts_with(prefix); ++t)
      if (IsTableIdSuffix(std::string_view(*t).substr(prefix.size()))) base = &*t, ++found;
    if (found != 1) {  // no base table, or two: which one the file meant is not known
      ++it;
      continue;
    }
    // TEMP names are found before the file's own: every read of the view's name reads this one.
    GPUSCOPE_RETURN_IF_ERROR(
        db.Exec("CREATE TEMP VIEW " + SqlIdent(*it) + " AS SELECT * FROM main." + SqlIdent(*base)));
    guard.replaced_views.emplace_back(*it, *base);
    it = guard.refused_views.erase(it);
  }
  return Status::Ok();
}

}  // namespace gpuscope::base
