#pragma once
// OpArgsCache: the interned op-args text (model::EncodeOpArgs) of each distinct recorded
// argument list, keyed by the bytes the file spells it with. A model's CPU ops repeat the same
// shapes every step, and minifying and encoding each op's arguments afresh was a tenth of a
// Kineto ingest (callgrind, the B200 sample: ~3,000 instructions per op); a hit costs a copy
// and a hash of the raw text. One per builder: ids are those of the builder's own string pool.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/hash.h"
#include "base/string_pool.h"

namespace gpuscope::import::kineto {

class OpArgsCache {
 public:
  // The id of EncodeOpArgs(dims, types, concrete, {}) in `pool`, encoded and interned only the
  // first time these three texts are seen.
  base::StringId Get(base::StringPool& pool, std::string_view dims, std::string_view types,
                     std::string_view concrete);

 private:
  // Past this many distinct lists (shapes that never repeat) the cache starts again: memory
  // stays bounded and a miss costs what no cache costs.
  static constexpr size_t kMaxEntries = 1 << 16;

  std::unordered_map<std::string, base::StringId, base::BytesHash, std::equal_to<>> ids_;
  std::string key_;  // scratch: the three texts, each after its length
};

}  // namespace gpuscope::import::kineto
