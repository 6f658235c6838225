#include "import/common/sqlite_columns.h"

#include <algorithm>

namespace gpuscope::import {

ColumnSet::ColumnSet(const base::SqliteDb& db, std::string_view table)
    : columns_(db.Columns(table)) {}

bool ColumnSet::Has(std::string_view column) const {
  return std::find(columns_.begin(), columns_.end(), column) != columns_.end();
}

std::string ColumnSet::Select(std::initializer_list<std::string_view> wanted,
                              std::string_view alias) const {
  std::string out;
  for (auto c : wanted) {
    if (!out.empty()) out += ", ";
    if (!Has(c)) {
      out += "NULL";
      continue;
    }
    if (!alias.empty()) out.append(alias).push_back('.');
    out += base::SqlIdent(c);
  }
  return out;
}

std::string ColumnSet::Missing(std::span<const std::string_view> wanted) const {
  std::string out;
  for (auto c : wanted) {
    if (Has(c)) continue;
    if (!out.empty()) out += ", ";
    out += c;
  }
  return out;
}

StringIdMap::StringIdMap(const base::SqliteDb& db, model::Trace* trace, std::string_view sql)
    : trace_(trace) {
  auto q = db.Query(sql);
  if (q.ok()) {
    lookup_.emplace(std::move(q).value());
    ok_ = true;
  }
}

model::StringId StringIdMap::Get(int64_t id) {
  auto it = cache_.find(id);
  if (it != cache_.end()) return it->second;
  model::StringId sid = 0;
  if (lookup_) {
    lookup_->Reset();
    lookup_->Bind(1, id);
    if (lookup_->Step()) {
      sid = trace_->strings.Intern(lookup_->Text(0));
    } else if (!lookup_->status().ok()) {  // never a silent placeholder (issue 53)
      trace_->problems.Add(model::ProblemKind::kSqliteReadError,
                           "string " + std::to_string(id) + ": " + lookup_->status().message());
      sid = trace_->strings.Intern("<unreadable string " + std::to_string(id) + ">");
    } else {
      sid = trace_->strings.Intern("<string " + std::to_string(id) + ">");
    }
  }
  cache_.emplace(id, sid);
  return sid;
}

}  // namespace gpuscope::import
