#pragma once
// Helpers for importers of SQLite formats whose schema varies by tool version: select columns
// by name, substituting NULL for the ones an older or newer writer does not have, and map
// a file's own string-id table into the trace's string pool lazily.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/sqlite_db.h"
#include "model/trace.h"

namespace gpuscope::import {

// A time column's value, or model::kUnknownTime when it is NULL, text or a fraction (the
// validation step then drops the event and counts it; Int() would have read 0).
inline int64_t TimeAt(const base::SqliteQuery& q, int col) {
  return q.Integer(col).value_or(model::kUnknownTime);
}

// The columns of one table, for building SELECT lists that survive schema changes.
class ColumnSet {
 public:
  ColumnSet(const base::SqliteDb& db, std::string_view table);
  bool Has(std::string_view column) const;
  // "a, b, NULL, d": each wanted column, or NULL where the table lacks it (qualified by `alias.`
  // when alias is not empty). Column indexes in the result follow the order of `wanted`.
  std::string Select(std::initializer_list<std::string_view> wanted,
                     std::string_view alias = {}) const;
  // The wanted columns the table lacks, comma-separated ("" when none).
  std::string Missing(std::span<const std::string_view> wanted) const;
  std::string Missing(std::initializer_list<std::string_view> wanted) const {
    return Missing(std::span<const std::string_view>(wanted.begin(), wanted.size()));
  }

 private:
  std::vector<std::string> columns_;
};

// Resolves integer string ids of a file (nsys StringIds, rpd rocpd_string) to pool ids, one
// lookup per distinct id.
class StringIdMap {
 public:
  // `sql` selects the value for one id, with the id as parameter 1.
  StringIdMap(const base::SqliteDb& db, model::Trace* trace, std::string_view sql);
  model::StringId Get(int64_t id);
  std::string_view Text(int64_t id) { return trace_->str(Get(id)); }
  bool ok() const { return ok_; }

 private:
  model::Trace* trace_;
  std::unordered_map<int64_t, model::StringId> cache_;
  std::optional<base::SqliteQuery> lookup_;
  bool ok_ = false;
};

}  // namespace gpuscope::import
