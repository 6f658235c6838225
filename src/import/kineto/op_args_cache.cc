#include "import/kineto/op_args_cache.h"

#include <cstring>

#include "model/op_args.h"

namespace gpuscope::import::kineto {

base::StringId OpArgsCache::Get(base::StringPool& pool, std::string_view dims,
                                std::string_view types, std::string_view concrete) {
  // Each text after its length: no two different triples make the same key.
  key_.clear();
  for (std::string_view part : {dims, types, concrete}) {
    const auto size = static_cast<uint32_t>(part.size());
    key_.append(reinterpret_cast<const char*>(&size), sizeof(size));
    key_.append(part);
  }
  if (auto it = ids_.find(std::string_view(key_)); it != ids_.end()) return it->second;
  if (ids_.size() >= kMaxEntries) ids_.clear();
  const base::StringId id = pool.Intern(model::EncodeOpArgs(dims, types, concrete, {}));
  ids_.emplace(key_, id);
  return id;
}

}  // namespace gpuscope::import::kineto
