#pragma once
// SqliteStringIds: the id of each distinct text in a writer's string table (rpd's and rocpd's
// rocpd_string, nsys's StringIds), inserted the first time it is asked for. Ids count from 1.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/sqlite_db.h"
#include "base/status.h"
#include "model/trace.h"

namespace gpuscope::output {

class SqliteStringIds {
 public:
  // `insert` binds (?1 id, ?2 text).
  SqliteStringIds(const model::Trace& t, base::SqliteQuery insert)
      : t_(t), insert_(std::move(insert)), by_pool_id_(t.strings.size(), 0) {}

  base::StatusOr<int64_t> Of(model::StringId id) {
    if (id < by_pool_id_.size() && by_pool_id_[id] != 0) return by_pool_id_[id];
    auto v = Of(t_.str(id));
    if (v.ok() && id < by_pool_id_.size()) by_pool_id_[id] = *v;
    return v;
  }
  base::StatusOr<int64_t> Of(std::string_view text) {
    auto it = by_text_.find(std::string(text));
    if (it != by_text_.end()) return it->second;
    int64_t id = static_cast<int64_t>(by_text_.size()) + 1;
    insert_.Bind(1, id);
    insert_.Bind(2, text);
    GPUSCOPE_RETURN_IF_ERROR(insert_.Run());
    by_text_.emplace(std::string(text), id);
    return id;
  }

 private:
  const model::Trace& t_;
  base::SqliteQuery insert_;
  std::vector<int64_t> by_pool_id_;
  std::unordered_map<std::string, int64_t> by_text_;
};

}  // namespace gpuscope::output
